// Lines a theme adds around the content, alone in their block: a call to action on a link ("Learn more", "Book a
// demo", "Read the case study"), which points elsewhere and says nothing of the page, a reading time ("5 min read"),
// and what a script shows until it fills a block in ("Loading reviews…"). Inside a sentence ("to learn more, see…")
// the same words are prose and stay.

/** Arrows and chevrons themes put after the words. */
const ARROWS = /[\s→›»>↗➔⟶-]+$/u;
const CALL_TO_ACTION =
  /^(?:(?:learn|read|see|view|find out|discover|know|explore|show) more|(?:see|view|more) details|read (?:the )?(?:full )?(?:story|article|post|blog|case study)|continue reading|click here|get started(?: (?:for )?free| now)?|start (?:for )?free|try (?:it )?(?:for )?free|sign up(?: now| free| for free)?|contact us|(?:book|buy|shop|order|download|apply|enrol|enroll|register) now|(?:watch|request|book|get|schedule) (?:a )?demo)$/i;
const READING_TIME = /^(?:\d+\s*min(?:ute)?s?\.?\s+read(?:ing)?(?: time)?|reading time:?\s*\d+\s*min(?:ute)?s?)$/i;
/** "Loading reviews…", "Loading... Please wait"; bare "Loading" too, but not as a heading, where it may be a topic. */
const LOADING = /^loading(?: \p{L}+){0,2} ?(?:\.{2,}|…)(?: please wait(?:\.{2,}|…)?)?$/iu;
const BARE_LOADING = /^loading$/i;

function phraseOf(el: Element): string {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Nodes beside a link in its block that are still one line: blank text and an icon's empty slot or two. */
const MAX_BESIDE = 8;

/**
 * True when the link is the whole text of the block around it (and that block is not the content's root): the few
 * other children of the block are blank. A block of many children is not one line, and is not read through: that
 * would cost the size of the block for each link in it.
 */
function standsAlone(link: Element, root: Element): boolean {
  const block = link.parentElement;
  if (block === null || block === root || block.childNodes.length > MAX_BESIDE + 1) return false;
  for (let node = block.firstChild; node; node = node.nextSibling) {
    if (node !== link && (node.textContent ?? '').trim() !== '') return false;
  }
  return true;
}

export function removeChromeLines(root: Element): void {
  for (const link of Array.from(root.querySelectorAll('a'))) {
    if (CALL_TO_ACTION.test(phraseOf(link).replace(ARROWS, '')) && standsAlone(link, root)) link.remove();
  }
  // Leaves only, outside code: a program's `return 'Loading...'` is its text.
  for (const el of Array.from(root.querySelectorAll('span, div, p, small, time, li, strong, b, h2, h3, h4, h5, h6'))) {
    if (el.firstElementChild !== null) continue;
    const phrase = phraseOf(el);
    const heading = /^H\d$/.test(el.tagName);
    const chrome = READING_TIME.test(phrase) || LOADING.test(phrase) || (!heading && BARE_LOADING.test(phrase));
    if (chrome && el.closest('pre, code') === null) el.remove();
  }
}
