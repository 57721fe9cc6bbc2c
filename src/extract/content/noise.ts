// Small blocks inside an article's container that are not its text: captions and photo credits, bylines and
// datelines, author bios, share bars and tag lists, teasers for other pages. Readability keeps them when they share
// the article's container, and drops class names before we see its result, so the named ones go from the page before
// it runs; the teaser paragraphs, which carry no telling name, go from its result.
import { isControlText } from './boilerplate.js';
import { compactLength, holdsMostOfPage } from '../page-share.js';
import { isBylineMark } from './bylines.js';
import { isCommentOnPost } from '../page-type/comments.js';
import { pageTypeOf, type PageType } from '../page-type/page-type.js';

interface NoiseKind {
  /** Words of a class or id, matched as a whole token or a part of one between `-` and `_`. */
  names: RegExp;
  /** An element with more text than this is a wrapper that happens to carry the name, not the block itself. */
  maxText: number;
  /** Kept inside repeated items (forum posts, Q&A answers): there it says who wrote which part of the content. */
  keptInRepeatedItems?: boolean;
  /** Kept on a forum page (page-type.ts): there the comments are the posts of the thread. */
  keptOnForums?: boolean;
  /** Noise on this type of page only (page-type.ts): elsewhere the name holds content (a code signature, a review). */
  onlyOn?: PageType;
}

/** `words` as whole tokens of a class/id list or parts of one: `named(/meta/)` matches `post-meta` and `meta_top`. */
function named(words: RegExp): RegExp {
  return new RegExp(`(?:^|[\\s_-])(?:${words.source})(?=$|[\\s_-])`, 'i');
}

const NOISE_KINDS: NoiseKind[] = [
  {
    names: named(
      /captions?|figcaption|credits?|photo-?credit|image-?credit|wp-caption-text|gallery|slideshow|carousel|lightbox/,
    ),
    maxText: 600,
  },
  {
    names: named(
      /bylines?|dateline|timestamp|posted-?on|published|updated|pubdate|date|time|authors?|author-?info|article-?meta|post-?meta|entry-?meta|meta/,
    ),
    maxText: 200,
    keptInRepeatedItems: true,
  },
  {
    names: named(/bio|author-?bio|author-?box|about-?the-?author|about-?author|author-?card|author-?details/),
    maxText: 1500,
  },
  {
    names: named(
      /tags|tag-?list|tag-?links|keywords|categories|breadcrumbs?|pagination|pager|post-?nav|post-?navigation|nav-?links|prev|next|previous|share|sharing|social|share-?tools|share-?bar|follow|subscribe|cookies?|consent|gdpr|advert|advertisement|ads?|sponsored/,
    ),
    maxText: 3000,
  },
  { names: named(/comments?|disqus|respond/), maxText: 3000, keptOnForums: true },
  // A poster's signature under each post, in every forum engine's naming (`signature`, `post-signature`,
  // `postsignature`, `signaturecontainer`): the same lines repeated under all their posts. Elsewhere the name marks
  // code (typedoc's `tsd-signature`, javadoc's `member-signature`) or a form's signature pad.
  { names: /signature/i, maxText: 1500, onlyOn: 'forum' },
  // A product's reviews are as long as its buyers make them: no limit but the half of the page that holds the content.
  { names: named(/reviews?|ratings?/), maxText: Infinity, onlyOn: 'product' },
  {
    names: named(
      /related|recommended|recommendations|more-?stories|read-?more|readmore|also|see-?also|promo|teasers?|trending|popular|most-?read|newsletter|signup|outbrain|taboola|cta/,
    ),
    maxText: 2000,
  },
];
/**
 * Never an article's text: menus, asides and controls. Readability would score and clean them for nothing: without
 * them the whole extraction went from 0.84-0.96x to 1.13x plain Readability's pages/s on the benchmark.
 */
const CHROME_TAGS = new Set(['NAV', 'ASIDE', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'IFRAME', 'DIALOG']);
/** Never removed by name: they are, or may wrap, the content itself. */
const CONTAINERS = new Set(['HTML', 'BODY', 'MAIN', 'ARTICLE']);
/** A paragraph or heading whose text is this much link text is a pointer to another page. */
const LINK_PARAGRAPH_SHARE = 0.8;

function isNamedNoise(el: Element): boolean {
  if (CONTAINERS.has(el.tagName)) return false;
  const names =
    el.tagName === 'FIGCAPTION' ? 'figcaption' : `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
  const kind = NOISE_KINDS.find((candidate) => candidate.names.test(names));
  if (kind === undefined || (el.textContent ?? '').length > kind.maxText || holdsMostOfPage(el)) return false;
  const pageType = pageTypeOf(el.ownerDocument);
  if (kind.onlyOn !== undefined && pageType !== kind.onlyOn) return false;
  if (kind.keptOnForums && pageType === 'forum' && !isCommentOnPost(el)) return false;
  return !(kind.keptInRepeatedItems && isInRepeatedItem(el));
}

/** Ancestors looked at for a repeated item: a byline sits a level or two inside its post. */
const ITEM_DEPTH = 3;
/** Siblings of one class that make a series of items rather than a one-off block. */
const MIN_REPEATS = 3;

/** True when el sits in an element that repeats with its class among its siblings: one post of a thread. */
function isInRepeatedItem(el: Element): boolean {
  let item: Element | null = el.parentElement;
  for (let depth = 0; item && depth < ITEM_DEPTH && !CONTAINERS.has(item.tagName); depth++, item = item.parentElement) {
    const name = item.getAttribute('class');
    if (!name) continue;
    let repeats = 0;
    for (let sibling = item.parentElement?.firstElementChild; sibling; sibling = sibling.nextElementSibling) {
      if (sibling.getAttribute('class') === name && ++repeats >= MIN_REPEATS) return true;
    }
  }
  return false;
}

/**
 * A <header> or <footer> outside any article or main is the site's banner or footer; inside one it is a byline or
 * notes.
 */
function isPageChrome(el: Element): boolean {
  return (
    (el.tagName === 'HEADER' || el.tagName === 'FOOTER') && !el.parentElement?.closest('article, main, [role="main"]')
  );
}

/**
 * A caption is not the article's text, but it says what its photo shows: it becomes the image's alt text when it says
 * more than the alt does, so the Markdown keeps it beside the image and plain text (which has no images) does not.
 */
function keepCaptionAsAlt(caption: Element): void {
  const images = caption.closest('figure')?.querySelectorAll('img');
  if (images?.length !== 1) return;
  const image = images[0]!;
  const text = (caption.textContent ?? '').replace(/\s+/g, ' ').trim();
  if (text.length > (image.getAttribute('alt') ?? '').trim().length) image.setAttribute('alt', text);
}

/** A bare count: a post's number, its votes or likes (`12`, `-3`, `1.2k`). */
const BARE_COUNT = /^[+\-−]?\d[\d,.]*[kKmM]?$/;

/**
 * On a thread, a leaf that holds only a count is a post's number or its vote or like counter: chrome repeated on every
 * post. Cells and code keep their figures.
 */
function isPostCounter(el: Element): boolean {
  return (
    el.firstElementChild === null &&
    pageTypeOf(el.ownerDocument) === 'forum' &&
    BARE_COUNT.test((el.textContent ?? '').trim()) &&
    el.closest('table, pre, code, ol') === null
  );
}

/**
 * A poster's standing beside each post (phpBB, vBulletin, XenForo): `Posts: 4,032`, `Joined: Dec 2021`, `Messages
 * 1,234` (a <dl> of label and value), `1,109 posts`. Without a colon the value must be a count or
 * a date (or nothing: bare counts go on their own).
 */
const POSTER_STAT = new RegExp(
  [
    /^(?:posts|joined|join date|messages|reaction score|location|reputation|points|trophy points|best answers)\s*:/,
    /^(?:likes|reactions) received\s*:/,
    /^(?:posts|messages|reaction score|points|trophy points|best answers|solutions)(?:\s+[\d,.]+[km]?)?$/,
    /^(?:joined|join date)\s+[\w ,.]*\d[\w ,.:]*$/,
    /^[\d,.]+[km]?\s+(?:posts|messages)\W*$/,
  ]
    .map((part) => part.source)
    .join('|'),
  'i',
);
/** A stat line is short; a post that opens with "Location:" goes on past it. */
const MAX_STAT_TEXT = 80;

/** On a thread, a block that opens with a poster's stat label is their profile's counters, repeated on every post. */
function isPosterStat(el: Element): boolean {
  // Some themes label a stat with an icon whose title says what it counts (`<span title="Messages"><i>`).
  const icon = el.querySelector('[title]');
  const label = icon && (icon.textContent ?? '').trim() === '' ? icon.getAttribute('title') : '';
  const text = `${label} ${el.textContent ?? ''}`.replace(/\s+/g, ' ').trim();
  return text.length <= MAX_STAT_TEXT && POSTER_STAT.test(text) && el.closest('table, pre, code') === null;
}

/** A reply's own text beside a quote: more than an attribution line ("Quote", a name) must sit next to it. */
const REPLY_TEXT = 20;

/**
 * On a thread, a blockquote beside a reply's own text quotes an earlier post, whose text the page holds already (or
 * another page of the thread does). Engines mark such a quote (a class, data attributes, a <cite> naming the poster);
 * a bare blockquote is a pull quote of a blog post that declares its comments. A blockquote alone in its parent is
 * the post itself (engines that render every post as one).
 */
function isQuotedPost(el: Element): boolean {
  if (el.tagName !== 'BLOCKQUOTE' || pageTypeOf(el.ownerDocument) !== 'forum') return false;
  // The byline marks of bylines.ts are ours, not the engine's.
  const marked = [...el.attributes].some((attribute) => !isBylineMark(attribute.name));
  if (!marked && el.querySelector('cite') === null) return false;
  const parent = el.parentElement;
  if (!parent) return false;
  const beside = compactLength(parent.textContent) - compactLength(el.textContent);
  return beside >= REPLY_TEXT;
}

/** Removes chrome elements and the blocks whose class, id or tag names them as noise, wherever they are below root. */
export function removeNamedNoise(root: Element): void {
  let next: Element | null;
  for (let el = root.firstElementChild; el; el = next) {
    next = el.nextElementSibling;
    // A tree walk: on pages of thousands of elements, a selector query costs several times as much.
    if (
      CHROME_TAGS.has(el.tagName) ||
      isPageChrome(el) ||
      isPostCounter(el) ||
      isQuotedPost(el) ||
      // Readability keeps a product's "Add to cart" and "Regular price" in its pick, which a product keeps whole. On
      // other pages removing them first changed Readability's pick (a collection's cards went for a banner).
      (pageTypeOf(el.ownerDocument) === 'product' && isControlText(el)) ||
      ((el.tagName === 'FIGCAPTION' || el.hasAttributes()) && isNamedNoise(el))
    ) {
      if (el.tagName === 'FIGCAPTION') keepCaptionAsAlt(el);
      el.remove();
    } else removeNamedNoise(el);
  }
}

/**
 * Removes posters' stat lines from a thread's extracted content. Done after the content is found: removed before
 * Readability, they changed its pick (a phpBB thread lost whole posts).
 */
export function removePosterStats(root: Element): void {
  const children = [...root.children];
  // The profile block that holds a stat line holds the poster's other fields too: `Primary OS: Windows`, `Contact:`.
  const isProfile = children.some(isPosterStat);
  for (const el of children) {
    if (isPosterStat(el) || isPostTally(el) || (isProfile && isProfileField(el))) el.remove();
    else removePosterStats(el);
  }
}

/**
 * What each post of a thread shows beside its text: its number (`#12`, a link to the post) and its tallies (`3 Likes`,
 * `1 reply`). Removed with the stat lines, after the content is found: removed before, they changed Readability's pick.
 */
const POST_TALLY = /^(?:#\d+\s*[·•|]?|[\d,.]+[km]?\s+(?:likes?|replies|reply|votes?))$/i;

function isPostTally(el: Element): boolean {
  return POST_TALLY.test((el.textContent ?? '').replace(/\s+/g, ' ').trim()) && el.closest('table, pre, code') === null;
}

/** A profile's field: a short label and a colon, then a short value. */
const PROFILE_FIELD = /^[^:.!?]{2,30}:/;

function isProfileField(el: Element): boolean {
  const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length <= MAX_STAT_TEXT && PROFILE_FIELD.test(text);
}

/** Removes paragraphs and headings that are (almost) all link text: "READ MORE: …", "CLICK HERE TO GET THE APP". */
export function removeLinkParagraphs(root: Element): void {
  for (const block of [...root.querySelectorAll('p, h2, h3, h4, h5, h6')]) {
    const length = compactLength(block.textContent);
    if (length === 0) continue;
    let linked = 0;
    for (const link of block.querySelectorAll('a')) linked += compactLength(link.textContent);
    // A link that introduces the list after it ("Read the raw data:" above its parts) belongs with that list.
    const introducesList = /^(?:UL|OL)$/.test(block.nextElementSibling?.tagName ?? '');
    if (linked >= LINK_PARAGRAPH_SHARE * length && !introducesList) block.remove();
  }
}
