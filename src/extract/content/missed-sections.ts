// A landing page (a service's hero, features, pricing, FAQ) is built of many headed sections, and Readability's pick
// may hold most of its prose yet leave out the feature cards and FAQ entries: each a heading and a line or two, too
// short to score. This tells when the page minus boilerplate holds such sections beyond the pick.

/** Headed sections beyond the pick that make it one part of a landing page: a story's sidebar has a few. */
const MISSED_HEADINGS = 8;
/** Share of the text beyond the pick that may be link text: more is menus, teasers and footers of links. */
const MAX_REMAINDER_LINKS = 0.3;
/** Words (outside links) of a paragraph of prose: more such paragraphs than headings are a blog's teasers. */
const PROSE_WORDS = 12;
const HEADINGS = 'h1, h2, h3, h4, h5, h6';

function normalise(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** The page's headings before Readability runs (it changes the page): the cheap test of missedSections. */
export function headingTexts(root: Element): string[] {
  return [...root.querySelectorAll(HEADINGS)].map((h) => normalise(h.textContent)).filter((text) => text !== '');
}

/** Every text node and heading of the pick, whitespace-collapsed. */
function pickTexts(pick: Element): Set<string> {
  const texts = new Set(headingTexts(pick));
  const walk = (el: Element): void => {
    for (let node = el.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3) texts.add(normalise(node.nodeValue));
      else if (node.nodeType === 1) walk(node as Element);
    }
  };
  walk(pick);
  texts.delete('');
  return texts;
}

/**
 * The page minus boilerplate, made by `full` only when the pick left out enough of the page's `headings` to be worth
 * weighing it, when it holds headed sections the pick missed (missesHeadedSections); else null.
 */
export function missedSections(headings: string[], pick: Element, full: () => Element): Element | null {
  if (headings.length < MISSED_HEADINGS) return null;
  const texts = pickTexts(pick);
  if (headings.filter((text) => !texts.has(text)).length < MISSED_HEADINGS) return null;
  const page = full();
  return missesHeadedSections(texts, page) ? page : null;
}

/** Text beyond the pick: its length and how much of it is link text. */
function measureRemainder(full: Element, texts: Set<string>): { all: number; link: number } {
  const count = { all: 0, link: 0 };
  const walk = (el: Element, inLink: boolean): void => {
    for (let node = el.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3) {
        const text = normalise(node.nodeValue);
        if (text === '' || texts.has(text)) continue;
        count.all += text.length;
        if (inLink) count.link += text.length;
      } else if (node.nodeType === 1) walk(node as Element, inLink || (node as Element).tagName === 'A');
    }
  };
  walk(full, false);
  return count;
}

/** Whether the pick holds el: its whole text as one of the pick's, or any of its text nodes. */
function inPick(el: Element, texts: Set<string>): boolean {
  if (texts.has(normalise(el.textContent))) return true;
  const walk = (node: Node): boolean => {
    if (node.nodeType === 3) return texts.has(normalise(node.nodeValue)); // texts holds no ''
    for (let child = node.firstChild; child; child = child.nextSibling) if (walk(child)) return true;
    return false;
  };
  return walk(el);
}

/** A heading that is a link is a card's or a teaser's title (another page's), not a section of this one. */
function isLinkTitle(heading: Element): boolean {
  let linked = 0;
  for (const link of heading.querySelectorAll('a')) linked += normalise(link.textContent).length;
  return linked > 0.5 * normalise(heading.textContent).length;
}

function proseWords(p: Element): number {
  let linked = 0;
  for (const link of p.querySelectorAll('a')) linked += normalise(link.textContent).split(' ').length;
  return normalise(p.textContent).split(' ').length - linked;
}

/**
 * True when the page minus boilerplate (`full`) holds, beyond the pick (its `texts`), many distinct headings that are
 * not links, no more paragraphs of prose than headings, and text that is mostly not links: the feature cards, steps
 * and FAQ entries of a landing page, not a blog's teasers or a shop's product tiles.
 */
function missesHeadedSections(texts: Set<string>, full: Element): boolean {
  // Distinct texts: a label every card of a grid repeats ("Ways to save", "Key data") is one template, not sections.
  const missed = new Set<string>();
  for (const h of full.querySelectorAll(HEADINGS)) {
    if (!isLinkTitle(h) && !inPick(h, texts)) missed.add(normalise(h.textContent));
  }
  missed.delete('');
  const headings = missed.size;
  if (headings < MISSED_HEADINGS) return false;
  let prose = 0;
  for (const p of full.querySelectorAll('p')) {
    if (!inPick(p, texts) && proseWords(p) >= PROSE_WORDS) prose++;
  }
  if (prose > headings) return false;
  const remainder = measureRemainder(full, texts);
  return remainder.link <= MAX_REMAINDER_LINKS * remainder.all;
}
