// A ticker repeats one phrase in a row of copies ("Book Now * Book Now * …") so that its animation never runs dry,
// and a page still loading shows a row of identical placeholders ("Loading…"). A reader sees the phrase once.

/** Copies in a row that make a ticker or a placeholder grid: three equal items can still be content (a ✓ row). */
const MIN_COPIES = 4;
/** Longer items are sentences, and a page that repeats a sentence four times in a row means it. */
const MAX_PHRASE = 80;
/** Nodes a copy may hold (a phrase, a star, their wrappers); reading no further keeps the pass linear in the page. */
const MAX_COPY_NODES = 64;

/** An item's short phrase, whitespace-collapsed; null when it holds more than a short phrase. */
function phraseOf(el: Element): string | null {
  let text = '';
  let nodes = 0;
  const walk = (node: Node): boolean => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (++nodes > MAX_COPY_NODES) return false;
      if (child.nodeType === 3) text += child.nodeValue ?? '';
      else if (child.nodeType === 1 && !walk(child)) return false;
      if (text.length > 2 * MAX_PHRASE) return false;
    }
    return true;
  };
  if (!walk(el)) return null;
  const phrase = text.replace(/\s+/g, ' ').trim();
  return phrase.length <= MAX_PHRASE ? phrase : null;
}

/**
 * True when `el` holds only copies: child elements of one tag and one short phrase (words, not only symbols), and no
 * text of its own between them (a paragraph that marks a name each time it names it, a code line's keywords).
 */
function isRowOfCopies(el: Element): boolean {
  const first = el.firstElementChild;
  if (!first || el.childElementCount < MIN_COPIES) return false;
  for (let node = el.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).tagName !== first.tagName) return false;
    if (node.nodeType === 3 && (node.nodeValue ?? '').trim() !== '') return false;
  }
  const phrase = phraseOf(first);
  if (phrase === null || !/\p{L}{2}/u.test(phrase)) return false;
  for (let child = first.nextElementSibling; child; child = child.nextElementSibling) {
    if (phraseOf(child) !== phrase) return false;
  }
  return true;
}

/** Keeps the first of each row of copies; table rows and cells are data, whatever they repeat. */
export function collapseRepeatedCopies(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    if (el.tagName === 'TR' || el.tagName === 'TBODY' || el.tagName === 'TABLE' || !isRowOfCopies(el)) continue;
    // Gathered first: linkedom finds a last child by walking the children, so removing from the end is quadratic.
    const copies: Element[] = [];
    for (let copy = el.firstElementChild?.nextElementSibling; copy; copy = copy.nextElementSibling) copies.push(copy);
    for (const copy of copies) copy.remove();
  }
}
