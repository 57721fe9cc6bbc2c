// What is never main content (navigation, page header and footer, sidebars, forms, cookie and consent banners,
// hidden elements, blocks made mostly of links), and the fuller extraction that keeps everything else: the fallback
// for pages where Readability finds nothing or only a fraction (docs pages, short pages).
import { removeFilterPanels } from './filter-panels.js';
import { compactLength, holdsMostOfPage } from '../page-share.js';
import { COMMENT_NAMES, isCommentOnPost } from '../page-type/comments.js';
import { isThreadForm } from './post-forms.js';
import { pageTypeOf } from '../page-type/page-type.js';
import { removeTeaserSections } from './teasers.js';

const ALWAYS_DROPPED = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'NAV',
  'ASIDE',
  'IFRAME',
  'SVG',
  'CANVAS',
  'OBJECT',
  'EMBED',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'DIALOG',
  'LINK',
  'META',
]);
const NON_CONTENT_ROLES =
  /^(?:navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar)$/i;
/**
 * Class or id tokens that start with one of these words name chrome (`cookie-banner`, `sidebar-left`, `share-tools`).
 * Only the start of a token counts: `page-ad-margins` or `has-sidebar` are wrappers of the whole page.
 */
const NON_CONTENT_NAMES =
  /(?:^|\s)(?:cookies?|consent|gdpr|newsletter|subscribe|share|sharing|social|sidebar|advert|advertisement|ads?|sponsor(?:ed)?|banner|popup|modal|breadcrumbs?|skip|navbar|nav|navigation|menu|masthead|header|footer|related)(?:$|[-_\s])/i;
/**
 * Customer reviews and ratings are chrome on a product page (page-type.ts): the content is the product's description
 * and specifications. On a service page the same names hold testimonials, which are content.
 */
const REVIEW_NAMES = /(?:^|[\s_-])(?:reviews?|ratings?)(?:$|[\s_-])/i;
const CONTENT_NAMES = /(?:^|\s)(?:article|content|main|post|entry|body|story)(?:$|[-_\s])/i;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;
/**
 * Class tokens that CSS frameworks define as display: none (Bootstrap's `d-none`, `hidden`, `hide`, `is-hidden`):
 * templates, other variants' prices, copies for another screen size. Not when a breakpoint shows the element again
 * (`hidden md:block`, `d-none d-lg-flex`): that is the desktop layout.
 */
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|hide|d-none|is-hidden|u-hidden|js-hidden|invisible)(?=$|\s)/i;
const SHOWN_AT_BREAKPOINT =
  /(?:^|\s)(?:\w+:(?:block|flex|grid|inline|inline-block|inline-flex|table|contents)|d-\w+-(?:block|flex|grid|inline|inline-block|inline-flex|table))(?=$|\s)/i;
/** A form with this much text wraps the page (old ASP.NET sites), not a search or login box. */
const PAGE_FORM_TEXT = 500;
/**
 * Containers whose text is mostly link text are menus, teaser lists and footers of links, unless the page has little
 * other text: then the links are its content (an index page).
 */
const MIN_TEXT_BESIDE_LINKS = 500;
const LINK_LIST_CONTAINERS = new Set([
  'DIV',
  'SECTION',
  'UL',
  'OL',
  'TABLE',
  'TBODY',
  'TR',
  'TD',
  'HEADER',
  'FOOTER',
  'DL',
  'CENTER',
]);
const MAX_LINK_DENSITY = 0.5;

/** A link styled or announced as a button: "Add to cart", "Learn more", "Sign up now", a call to action. */
const BUTTON_CLASS = /(?:^|[\s_-])(?:btn|button)(?:$|[\s_-])/i;
/**
 * A button says a verb and a word or two; a longer link is a card, a title or a promotion's own words ("Shop Van Gogh
 * Watercolors") that a theme happens to style as one.
 */
const MAX_BUTTON_WORDS = 3;

function isButtonLink(el: Element): boolean {
  if (el.getAttribute('role') !== 'button' && !BUTTON_CLASS.test(el.getAttribute('class') ?? '')) return false;
  return (el.textContent ?? '').trim().split(/\s+/).length <= MAX_BUTTON_WORDS;
}

/** A keyboard user's jump past the menus ("Skip to main content", "Skip to product list"): an in-page link. */
export function isSkipLink(el: Element): boolean {
  return (el.getAttribute('href') ?? '').startsWith('#') && /^\s*skip\b/i.test(el.textContent ?? '');
}

/**
 * A leaf that only says what its block is, not what it holds: what a script shows until it has filled the block in
 * ("Loading…", left in the served page), an ad's label ("Sponsored", "Advertisement").
 */
const PLACEHOLDER = /^\s*(?:loading\s*(?:\.{3}|…)?|sponsored|advertisement)\s*$/i;

function isPlaceholderLeaf(el: Element): boolean {
  return el.firstElementChild === null && PLACEHOLDER.test(el.textContent ?? '');
}

/**
 * Text only a screen reader reads, in the classes themes and frameworks hide it with: a shop's "Regular price", "Sale
 * price", "Unit price", a pager's "Next". A longer one may be a product's name or the heading of a section, content.
 */
const SCREEN_READER_CLASS = /(?:^|\s)(?:sr-only|visually-hidden|visuallyhidden|screen-reader-text)(?=$|\s)/i;
const MAX_SCREEN_READER_WORDS = 3;

function isScreenReaderLabel(el: Element): boolean {
  return (
    SCREEN_READER_CLASS.test(el.getAttribute('class') ?? '') &&
    (el.textContent ?? '').trim().split(/\s+/).length <= MAX_SCREEN_READER_WORDS
  );
}

/** A control's or a placeholder's words that say nothing of the page: removed before Readability too (noise.ts). */
export function isControlText(el: Element): boolean {
  if (el.tagName === 'A' && (isButtonLink(el) || isSkipLink(el))) return true;
  return isPlaceholderLeaf(el) || isScreenReaderLabel(el);
}

/** An element a CSS framework's class hides at every screen size. */
export function isHiddenByClass(el: Element): boolean {
  const className = el.getAttribute('class');
  return className !== null && HIDDEN_CLASS.test(className) && !SHOWN_AT_BREAKPOINT.test(className);
}

/**
 * True for elements whose whole subtree is boilerplate. Runs on every element of the page: cheap tests first.
 * `keepHidden` keeps hidden elements: the last resort for pages that hide their content until a script shows it.
 */
export function isBoilerplate(el: Element, keepHidden = false): boolean {
  const tag = el.tagName;
  if (ALWAYS_DROPPED.has(tag)) return true;
  // A <header>/<footer> inside an article is its byline or notes, not the site's chrome.
  if ((tag === 'HEADER' || tag === 'FOOTER') && !el.parentElement?.closest('article, main, [role="main"]')) return true;
  if (tag === 'FORM') {
    if (pageTypeOf(el.ownerDocument) === 'forum') return isThreadForm(el);
    if ((el.textContent ?? '').length < PAGE_FORM_TEXT) return true;
  }
  // A form control's label ("Email*", a size or a filter option): the controls themselves are gone already.
  if (tag === 'LABEL') return true;
  if (isPlaceholderLeaf(el)) return true;
  if (!el.hasAttributes()) return false;
  if (tag === 'A' && (isButtonLink(el) || isSkipLink(el))) return true;
  if (!keepHidden) {
    // A popover (`<div popover>`: an app-install prompt, an off-canvas menu) is hidden until a control opens it.
    if (el.hasAttribute('hidden') || el.hasAttribute('popover') || el.getAttribute('aria-hidden') === 'true')
      return true;
    const style = el.getAttribute('style');
    if (style && HIDDEN_STYLE.test(style)) return true;
    if (isHiddenByClass(el)) return true;
  }
  const role = el.getAttribute('role');
  if (role && NON_CONTENT_ROLES.test(role)) return true;
  if (tag === 'BODY' || tag === 'MAIN' || tag === 'ARTICLE') return false;
  const names = `${el.getAttribute('id') ?? ''} ${el.getAttribute('class') ?? ''}`;
  if (REVIEW_NAMES.test(names) && pageTypeOf(el.ownerDocument) === 'product' && !holdsMostOfPage(el)) return true;
  return (
    (NON_CONTENT_NAMES.test(names) ||
      (COMMENT_NAMES.test(names) && (pageTypeOf(el.ownerDocument) !== 'forum' || isCommentOnPost(el)))) &&
    !CONTENT_NAMES.test(names) &&
    !el.querySelector('article, main, [role="main"]') &&
    !holdsMostOfPage(el)
  );
}

/**
 * The visible, non-boilerplate text under root that is not link text, as whitespace-collapsed text nodes. Link text
 * is left out because menus and lists of related stories are mostly links, and would make every article look short.
 */
export function collectContentText(root: Element, into: string[] = []): string[] {
  for (let node = root.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 3) {
      const value = node.nodeValue ?? '';
      // Most text nodes are indentation between tags: skip them without allocating.
      if (/\S/.test(value)) into.push(value.replace(/\s+/g, ' ').trim());
    } else if (node.nodeType === 1 && (node as Element).tagName !== 'A' && !isBoilerplate(node as Element)) {
      collectContentText(node as Element, into);
    }
  }
  return into;
}

export function measureText(chunks: string[]): number {
  return chunks.reduce((sum, chunk) => sum + chunk.length, 0);
}

interface TextCount {
  all: number;
  link: number;
}

/** Removes boilerplate (and link-dense containers if asked) below root; returns root's text counts after removal. */
function pruneBoilerplate(root: Element, dropLinkLists: boolean, inLink = false, keepHidden = false): TextCount {
  const count: TextCount = { all: 0, link: 0 };
  let next: ChildNode | null;
  for (let node = root.firstChild; node; node = next) {
    next = node.nextSibling;
    if (node.nodeType === 3) {
      const length = compactLength(node.nodeValue);
      count.all += length;
      if (inLink) count.link += length;
    } else if (node.nodeType === 1) {
      const el = node as Element;
      // Screen-reader labels still count as the page's text when Readability's pick is weighed: removing them there
      // changed which route a page took (a category's cards lost to its SEO text).
      if (isBoilerplate(el, keepHidden) || isScreenReaderLabel(el)) {
        el.remove();
        continue;
      }
      // A grid of cards (products, courses, events) is mostly link text and is the content of a listing: kept whole,
      // and its links count as text, so the containers around it are not taken for link lists either. An article's
      // grids are teasers for other stories, a product's for other products.
      const type = pageTypeOf(el.ownerDocument);
      const grid = dropLinkLists && type !== 'article' && type !== 'product' && isCardGrid(el);
      const child = pruneBoilerplate(el, dropLinkLists && !grid, inLink || el.tagName === 'A', keepHidden);
      if (grid) child.link = 0;
      if (
        dropLinkLists &&
        LINK_LIST_CONTAINERS.has(el.tagName) &&
        child.all > 0 &&
        child.link > MAX_LINK_DENSITY * child.all &&
        !isDataCell(el) &&
        !isListInProse(el)
      ) {
        el.remove();
        continue;
      }
      count.all += child.all;
      count.link += child.link;
    }
  }
  return count;
}

/**
 * A cell or row of a table with header cells: a data table, kept whole or dropped whole. A cell removed alone shifts
 * the cells after it into the wrong columns; a row of links (downloads, sources) is data.
 */
const DATA_PARTS = new Set(['TD', 'TR', 'TBODY']);
function isDataCell(el: Element): boolean {
  return DATA_PARTS.has(el.tagName) && el.closest('table')?.querySelector('th') != null;
}

/** Prose enough on each side of a list to tell a list the text introduces and goes on from. */
const PROSE_BESIDE_LIST = 12;

function proseLength(el: Element | null): number {
  if (!el || !/^(?:P|H[1-6])$/.test(el.tagName)) return 0;
  let linked = 0;
  for (const link of el.querySelectorAll('a')) linked += (link.textContent ?? '').length;
  return (el.textContent ?? '').trim().length - linked;
}

/**
 * A list of links between two paragraphs of the article's prose is content the text introduces (a list of deals,
 * of sources, of downloads); teaser and link lists sit at the article's edges or among other lists.
 */
function isListInProse(el: Element): boolean {
  if (el.tagName !== 'UL' && el.tagName !== 'OL') return false;
  return (
    proseLength(el.previousElementSibling) >= PROSE_BESIDE_LIST &&
    proseLength(el.nextElementSibling) >= PROSE_BESIDE_LIST
  );
}

/** Siblings of one tag and class that make a grid of cards, and the share of the children they must be. */
const MIN_CARDS = 4;
const CARD_SHARE = 0.7;
/** A card says more than a menu entry: a title of a few words, or a link and a photo. */
const MIN_CARD_TEXT = 30;

function isCard(el: Element): boolean {
  if (el.querySelector('a') === null && el.tagName !== 'A') return false;
  return (el.textContent ?? '').trim().length >= MIN_CARD_TEXT || el.querySelector('img') !== null;
}

/**
 * A container whose children are mostly one repeated item (same tag and class), each a link with a title or a photo:
 * the cards of a listing, a category page or a catalogue. Menus are lists of bare short links and fail the card test.
 */
function isCardGrid(el: Element): boolean {
  const children = el.children;
  if (children.length < MIN_CARDS) return false;
  const counts = new Map<string, number>();
  for (const child of children) {
    const key = `${child.tagName} ${child.getAttribute('class') ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const [key, repeats] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  if (repeats < MIN_CARDS || repeats < CARD_SHARE * children.length) return false;
  let cards = 0;
  for (const child of children)
    if (`${child.tagName} ${child.getAttribute('class') ?? ''}` === key && isCard(child)) cards++;
  return cards >= CARD_SHARE * repeats;
}

/**
 * Whether root holds a grid of cards that describe their items (a course, a programme: a title and a sentence or two),
 * not just name them (a shop's tiles: a name and a price).
 */
export function holdsDescribedCards(root: Element, minMeanText: number): boolean {
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (!isCardGrid(el)) continue;
    let total = 0;
    for (const child of el.children) total += (child.textContent ?? '').replace(/\s+/g, ' ').trim().length;
    if (total / el.children.length >= minMeanText) return true;
  }
  return false;
}

/** Removes containers that are mostly links (teaser lists, tag clouds, menus) from an article. */
export function dropLinkLists(root: Element): void {
  pruneBoilerplate(root, true);
}

/**
 * The page's <main> when it holds most of the text, else the body; boilerplate removed in place. `keepHidden`: see
 * isBoilerplate.
 */
export function extractFullContent(doc: Document, keepHidden = false): Element {
  const body = doc.body;
  removeTeaserSections(body);
  removeFilterPanels(body);
  const main = doc.querySelector('main, [role="main"]');
  // A <main> without visible text is a loading skeleton (streamed pages fill a hidden copy later): not the content.
  const mainLength = main ? measureText(collectContentText(main)) : 0;
  const root = main && mainLength > 0 && mainLength >= 0.5 * measureText(collectContentText(body)) ? main : body;
  const count = pruneBoilerplate(root, false, false, keepHidden);
  if (count.all - count.link >= MIN_TEXT_BESIDE_LINKS) pruneBoilerplate(root, true, false, keepHidden);
  return root;
}
