// Who wrote each post of a thread, and when. The name is a link to the member's profile and the date often a link to
// the post, so Readability cleans the byline away as link-dense, or the fallback's link-list pruning does; the
// issue asks that every post keep its author. Each post is marked with its byline before extraction, and the byline
// goes back at the head of every marked post whose kept text lacks it.
import { compactLength } from '../page-share.js';
import { DATE_TEXT, MEMBER_LINK } from '../page-type/thread-shape.js';

const AUTHOR = 'data-byline-author';
const DATE = 'data-byline-date';
/** True when el holds a post marked with its byline: a form around posts (inline moderation) is not a reply box. */
export function holdsMarkedPost(el: Element): boolean {
  return el.querySelector(`[${AUTHOR}]`) !== null;
}

/** True for the attributes this module marks posts with. */
export function isBylineMark(name: string): boolean {
  return name === AUTHOR || name === DATE;
}

/** A machine's timestamp written as the text of a <time>: not the date a reader sees. */
const MACHINE_DATE = /^\d{4}-\d{2}-\d{2}T/;
/** Ancestors looked at for the post around a member link: the name sits a few levels inside its post's header. */
const POST_DEPTH = 10;
/** A post says something besides its byline: a menu entry linking to a member list does not. */
const MIN_POST_TEXT = 40;
/** A member's name: a word or a few, not a sentence, not a bare count ("1,046" posts linking to the profile). */
const NAME = /^(?=.*\p{L}).{2,40}$/su;

/** Siblings looked at on each side for a post's twin: posts follow each other, and a longer scan is quadratic. */
const NEAR_SIBLINGS = 10;

/** Posts share their tag and class: a post's cells (`cell cell--user`, `cell cell--main`) share only a first class. */
function isTwin(a: Element, b: Element | null): boolean {
  return b !== null && b.tagName === a.tagName && b.getAttribute('class') === a.getAttribute('class');
}

/** True when an element of el's tag and class sits a few siblings before or after it. */
function repeatsNearby(el: Element): boolean {
  let before = el.previousElementSibling;
  let after = el.nextElementSibling;
  for (let step = 0; step < NEAR_SIBLINGS; step++) {
    if (isTwin(el, before) || isTwin(el, after)) return true;
    before = before?.previousElementSibling ?? null;
    after = after?.nextElementSibling ?? null;
  }
  return false;
}

/**
 * A post: an element that repeats with its tag and class among its siblings, says something besides its
 * author's name and carries a date. `looked` holds the elements measured already, so each is measured once.
 */
function isPost(el: Element, name: string, looked: WeakSet<Element>): boolean {
  if (looked.has(el) || !repeatsNearby(el)) return false;
  looked.add(el);
  const text = el.textContent ?? '';
  return (
    compactLength(text) - compactLength(name) >= MIN_POST_TEXT &&
    (el.querySelector('time') !== null || DATE_TEXT.test(text))
  );
}

/** The post around a member link: the nearest ancestor below root that is one (or is marked as one already). */
function enclosingPost(link: Element, name: string, root: Element, looked: WeakSet<Element>): Element | null {
  let el = link.parentElement;
  for (let depth = 0; el && depth < POST_DEPTH && el !== root; depth++, el = el.parentElement) {
    if (el.hasAttribute(AUTHOR) || isPost(el, name, looked)) return el;
  }
  return null;
}

/**
 * The links to members' pages under root whose text is a name: not a count, not a sentence, and not a label that
 * links to several members' pages ("View Public Profile" in each post's member menu).
 */
function namedMemberLinks(root: Element): { link: Element; name: string }[] {
  const links: { link: Element; name: string }[] = [];
  const targets = new Map<string, string | null>();
  for (const link of root.querySelectorAll('a[href]')) {
    const href = link.getAttribute('href') ?? '';
    const name = (link.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (!NAME.test(name) || !MEMBER_LINK.test(href)) continue;
    const target = targets.get(name);
    targets.set(name, target === undefined || target === href ? href : null);
    links.push({ link, name });
  }
  return links.filter(({ name }) => targets.get(name) !== null);
}

/** Marks each post under root with its author (its first link to a member's page) and its date (its first <time>). */
export function markBylines(root: Element): void {
  const looked = new WeakSet<Element>();
  for (const { link, name } of namedMemberLinks(root)) {
    const post = enclosingPost(link, name, root, looked);
    if (!post || post.hasAttribute(AUTHOR)) continue;
    post.setAttribute(AUTHOR, name);
    const date = (post.querySelector('time')?.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (date && !MACHINE_DATE.test(date)) post.setAttribute(DATE, date);
  }
}

/** The words of text between spaces, so a name is not found inside a longer word ("Ann" in "Annual"). */
function words(text: string): string {
  return ` ${(text.match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ')} `;
}

/** Puts the byline back at the head of each marked post under root whose text lacks it; the marks go. */
export function restoreBylines(root: Element): void {
  for (const post of [root, ...root.querySelectorAll(`[${AUTHOR}]`)]) {
    const author = post.getAttribute(AUTHOR);
    if (author === null) continue;
    const date = post.getAttribute(DATE);
    post.removeAttribute(AUTHOR);
    post.removeAttribute(DATE);
    const text = words(post.textContent ?? '');
    for (const line of [date, author]) {
      if (!line || text.includes(words(line))) continue;
      const p = post.ownerDocument.createElement('p');
      p.textContent = line;
      post.insertBefore(p, post.firstChild);
    }
  }
}

const POST_INDEX = 'data-post-index';
/**
 * Share of a post's text Readability's cleaning must leave for the post to stay as cleaned: a short reply (a line and
 * a link) reads to it as a link-dense or too-short block and goes whole, leaving its byline alone.
 */
const MIN_KEPT_POST_TEXT = 0.5;

/** A marked post as it stood before Readability cleaned it, and which run of sibling posts it belongs to. */
export interface PostCopy {
  copy: Element;
  run: number;
}

/** Copies of the marked posts under root as they stand before Readability cleans them, by an index they now carry. */
export function snapshotPosts(root: Element): PostCopy[] {
  const posts: PostCopy[] = [];
  const runs = new Map<Element | null, number>();
  for (const post of root.querySelectorAll(`[${AUTHOR}]`)) {
    if (!runs.has(post.parentElement)) runs.set(post.parentElement, runs.size);
    posts.push({ copy: post.cloneNode(true) as Element, run: runs.get(post.parentElement) ?? 0 });
    post.setAttribute(POST_INDEX, String(posts.length - 1));
  }
  return posts;
}

/** The posts of Readability's pick that it kept from the snapshot, by their index. */
function keptPosts(article: Element): Map<number, Element> {
  const kept = new Map<number, Element>();
  for (const post of article.querySelectorAll(`[${POST_INDEX}]`)) kept.set(Number(post.getAttribute(POST_INDEX)), post);
  return kept;
}

/**
 * Puts back, in their places, the posts Readability's pick dropped whole from a run of sibling posts it kept some of:
 * an opening post or a short reply cleaned away as link-dense while the replies around it stayed.
 */
function restoreDroppedPosts(posts: PostCopy[], kept: Map<number, Element>): void {
  const firstKept = new Map<number, Element>();
  for (const [index, post] of [...kept].sort(([a], [b]) => a - b)) {
    const run = posts[index]?.run ?? -1;
    if (!firstKept.has(run)) firstKept.set(run, post);
  }
  const lastPlaced = new Map<number, Element>();
  posts.forEach(({ copy, run }, index) => {
    const post = kept.get(index);
    if (post) lastPlaced.set(run, post);
    else if (lastPlaced.has(run)) lastPlaced.get(run)?.after(copy);
    else firstKept.get(run)?.before(copy);
    if (!post && firstKept.has(run)) lastPlaced.set(run, copy);
  });
}

/**
 * Puts back, in Readability's pick, the posts it dropped from among those it kept, and each post that its cleaning
 * cut to less than half its text.
 */
export function restorePosts(article: Element, posts: PostCopy[]): void {
  const kept = keptPosts(article);
  restoreDroppedPosts(posts, kept);
  for (const [index, post] of kept) {
    const original = posts[index]?.copy;
    post.removeAttribute(POST_INDEX);
    if (original && compactLength(post.textContent) < MIN_KEPT_POST_TEXT * compactLength(original.textContent))
      post.replaceWith(original);
  }
}
