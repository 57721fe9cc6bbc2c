// A thread that does not declare itself (no DiscussionForumPosting, QAPage or Comment markup): phpBB, reddit and many
// engines serve plain markup. Its shape tells it: a run of sibling posts, each with who wrote it (a link to a member's
// profile), when (a <time> or a date) and a body of its own text.
import { COMMENT_NAMES } from './comments.js';
import { compactLength } from '../page-share.js';

/** Sibling posts of one tag and first class that make a thread; listings of teasers rarely pass the post test. */
const MIN_POSTS = 5;
/** Share of the page's text the run of posts must hold. */
const MIN_PAGE_SHARE = 0.5;
/** A post's own words (its text minus its links): more than a teaser's summary line. */
const MIN_POST_TEXT = 150;
/** A link to a member's page: `/user/…`, `/members/…`, `/u/…`, `memberlist.php?…`, `/profile/…`. */
export const MEMBER_LINK = /\/(?:users?|members?|profiles?|u|memberlist\.php|member\.php)(?:[/?.-]|$)/i;
/** A post's date as text where no <time> marks it: `10:42`, `Mar 3`, `2 days ago`, `2024-03-03`. */
export const DATE_TEXT =
  /\b(?:\d{1,2}:\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}|\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago|\d{4}-\d{2}-\d{2})/i;

const INERT = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * A discussion page's own text besides its comments: a link aggregator's story (lobste.rs) is a title, a link and a
 * few words; an article with comments says more than this before them.
 */
const MAX_STORY_TEXT = 500;
/** Elements whose id or class may match COMMENT_NAMES (a necessary condition, case-insensitive like it). */
const MAY_BE_COMMENTS = '[class*="comment" i], [id*="comment" i]';

/** The page's text without the scripts, styles and templates some pages keep in the body. */
function visibleLength(root: Element): number {
  return visibleLengths(root, false).all;
}

/**
 * The visible text under root, and the part of it inside comment-named elements (when inComments, all of it), added
 * to `lengths`. The walk stops once the text outside comments passes `outsideLimit`: past it the answer is known.
 */
function visibleLengths(
  root: Element,
  inComments: boolean,
  lengths = { all: 0, comments: 0 },
  outsideLimit = Infinity,
): { all: number; comments: number } {
  for (let node = root.firstChild; node && lengths.all - lengths.comments <= outsideLimit; node = node.nextSibling) {
    if (node.nodeType === 3) {
      const length = compactLength(node.nodeValue);
      lengths.all += length;
      if (inComments) lengths.comments += length;
    } else if (node.nodeType === 1 && !INERT.has((node as Element).tagName)) {
      const el = node as Element;
      const named =
        inComments || COMMENT_NAMES.test(`${el.getAttribute('id') ?? ''} ${el.getAttribute('class') ?? ''}`);
      visibleLengths(el, named, lengths, outsideLimit);
    }
  }
  return lengths;
}

/**
 * True when the page is its comments: they hold most of its text, and outside them it says less than a story's few
 * lines (a link aggregator's discussion of a link). Such a page is a thread whatever it declares (lobste.rs says
 * `article`). A short page with a "No comments yet" box is not.
 */
export function isCommentsPage(doc: Document): boolean {
  // The walk runs for every page; most have no comment-named element, which a selector finds out cheaply.
  if (!doc.body?.querySelector(MAY_BE_COMMENTS)) return false;
  const { all, comments } = visibleLengths(doc.body, false, undefined, MAX_STORY_TEXT);
  return comments > all - comments && all - comments <= MAX_STORY_TEXT;
}

function isPost(el: Element): boolean {
  const text = el.textContent ?? '';
  const length = compactLength(text);
  if (length < MIN_POST_TEXT) return false;
  let linked = 0;
  let member = false;
  for (const link of el.querySelectorAll('a')) {
    linked += compactLength(link.textContent);
    member ||= MEMBER_LINK.test(link.getAttribute('href') ?? '');
  }
  return member && length - linked >= MIN_POST_TEXT && (el.querySelector('time') !== null || DATE_TEXT.test(text));
}

/**
 * True when some element holds MIN_POSTS post-shaped children of one tag and first class, its posts holding half the
 * page's text: a listing's or a product's page may end with a run of comments or reviews, a thread is its posts.
 */
export function hasThreadShape(doc: Document): boolean {
  let pageLength = -1;
  for (const parent of doc.body?.querySelectorAll('*') ?? []) {
    if (parent.children.length < MIN_POSTS) continue;
    const runs = new Map<string, number>();
    let postsLength = 0;
    for (const child of parent.children) {
      if (!isPost(child)) continue;
      const key = `${child.tagName} ${(child.getAttribute('class') ?? '').trim().split(/\s+/)[0]}`;
      runs.set(key, (runs.get(key) ?? 0) + 1);
      postsLength += compactLength(child.textContent);
    }
    if (Math.max(0, ...runs.values()) < MIN_POSTS) continue;
    if (pageLength < 0) pageLength = visibleLength(doc.body);
    if (postsLength >= MIN_PAGE_SHARE * pageLength) return true;
  }
  return false;
}
