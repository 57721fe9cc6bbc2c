// A ticker repeats one phrase in a row of copies ("Book Now * Book Now * …") so that its animation never runs dry,
// and a page still loading shows a row of identical placeholders ("Loading…"). A reader sees the phrase once.

/** Copies in a row that make a ticker or a placeholder grid: three equal items can still be content (a ✓ row). */
const MIN_COPIES = 4;
/** Longer items are sentences, and a page that repeats a sentence four times in a row means it. */
const MAX_PHRASE = 80;

function phraseOf(el: Element): string {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
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
  if (phrase.length > MAX_PHRASE || !/\p{L}{2}/u.test(phrase)) return false;
  for (let child = first.nextElementSibling; child; child = child.nextElementSibling) {
    if (phraseOf(child) !== phrase) return false;
  }
  return true;
}

/** Keeps the first of each row of copies; table rows and cells are data, whatever they repeat. */
export function collapseRepeatedCopies(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('*'))) {
    if (el.tagName === 'TR' || el.tagName === 'TBODY' || el.tagName === 'TABLE' || !isRowOfCopies(el)) continue;
    while (el.firstElementChild !== el.lastElementChild) el.lastElementChild?.remove();
  }
}
