// Sections of other pages' teasers that a shop, a forum or a blog puts beside the content: "Customers also viewed",
// "You may also like", "Similar threads", "Related posts". Their cards carry no telling class name, but their heading
// says what they are; the section that heading opens goes with it.
import { holdsMostOfPage } from '../page-share.js';

const TEASER_HEADING = new RegExp(
  [
    // A shop's: other products.
    'also (?:viewed|bought|purchased|like|liked)|customers who (?:viewed|bought)|frequently bought|recently viewed',
    'you (?:might|may) (?:also )?like|people also|more from this (?:seller|shop|store|brand)',
    'recommended (?:for you|products|items)',
    // A forum's or a blog's: other threads and posts.
    '(?:similar|related|suggested|trending) (?:items|products|threads|topics|questions|posts|discussions|articles)',
    'hot network questions|linked questions',
    '(?:featured|latest|recent|popular|trending|hot) (?:topics|threads|discussions)|most popular posts',
    'top posters in this|popular days',
    // A forum's prompt to sign in under the thread: a form and its pitch, not a post.
    'create an account or sign in|sign in to (?:comment|reply)|join the (?:discussion|conversation)',
  ]
    .map((words) => `\\b(?:${words})\\b`)
    .join('|'),
  'i',
);
/** A teaser heading is a short label; a longer heading is a sentence that happens to hold the words. */
const MAX_HEADING = 80;
/** Wrappers climbed from the heading to the section it opens. */
const MAX_DEPTH = 4;

/** The outermost element the heading opens (is the first element of), short of one holding most of the page. */
function sectionOpenedBy(heading: Element): Element {
  let section = heading;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const parent = section.parentElement;
    if (!parent || parent.firstElementChild !== section || /^(?:BODY|MAIN|ARTICLE|HTML)$/.test(parent.tagName)) break;
    if (holdsMostOfPage(parent)) break;
    section = parent;
  }
  return section;
}

/** Removes the sections under root that a teaser heading opens. */
export function removeTeaserSections(root: Element): void {
  for (const heading of Array.from(root.querySelectorAll('h2, h3, h4, h5, h6'))) {
    if (!heading.isConnected) continue;
    const text = (heading.textContent ?? '').trim();
    if (text.length > MAX_HEADING || !TEASER_HEADING.test(text)) continue;
    const section = sectionOpenedBy(heading);
    // A heading with no wrapper of its own: its teasers are the element right after it.
    if (section === heading) heading.nextElementSibling?.remove();
    section.remove();
  }
}
