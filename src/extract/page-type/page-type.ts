// What kind of page this is, from what it says about itself: the extraction profile switches on it (a forum thread
// keeps every post, where an article's comment section goes; a page that does not call itself an article keeps its
// grids of cards; a product page loses its reviews). Only the kinds whose profile differs are told apart.
import { ARTICLE_TYPES, PRODUCT_TYPES, readJsonLdTypes } from '../metadata/jsonld.js';
import { hasThreadShape, isCommentsPage } from './thread-shape.js';

export type PageType = 'article' | 'forum' | 'product' | 'other';

/** schema.org types that only a discussion declares: a thread, a question with its answers, a comment. */
const FORUM_TYPES = /^(?:DiscussionForumPosting|QAPage)$/;
const FORUM_ITEMTYPES = /schema\.org\/(?:DiscussionForumPosting|QAPage|Comment)\b/i;
const PRODUCT_ITEMTYPE = /schema\.org\/Product\b/i;
const PRODUCT_OG_TYPES = /^(?:og:)?product(?:\.item)?$/;
const ADD_TO_CART = /\badd[-_ ]?to[-_ ]?(?:cart|bag|basket)\b/i;
/** A buy box's button, perhaps repeated in a sticky bar and a mobile layout; a catalogue has one per card. */
const MAX_BUY_BUTTONS = 3;

// Read once per document, whose lifetime (one extraction) is the memo's: a WeakMap.
const pageTypes = new WeakMap<Document, PageType>();

/** Reads the page's declared type from its JSON-LD (the blocks parse.ts cut out), microdata and og:type. */
export function detectPageType(doc: Document, jsonLd: readonly string[]): PageType {
  const types = [...readJsonLdTypes(jsonLd)];
  if (types.some((type) => FORUM_TYPES.test(type))) return 'forum';
  for (const el of doc.querySelectorAll('[itemtype]')) {
    if (FORUM_ITEMTYPES.test(el.getAttribute('itemtype') ?? '')) return 'forum';
  }
  if (isCommentsPage(doc)) return 'forum';

  if (types.some((type) => ARTICLE_TYPES.test(type))) return 'article';
  const ogType = doc.querySelector('meta[property="og:type"]')?.getAttribute('content')?.trim().toLowerCase() ?? '';
  if (ogType === 'article') return 'article';
  if (declaresProduct(doc, types, ogType)) return 'product';
  // A thread that declares nothing shows it by its shape: a run of posts, each with its author and date.
  return hasThreadShape(doc) ? 'forum' : 'other';
}

/** One item for sale: a top-level JSON-LD Product, one microdata Product (a catalogue has many), og:type product. */
function declaresProduct(doc: Document, types: string[], ogType: string): boolean {
  if (types.some((type) => PRODUCT_TYPES.test(type)) || PRODUCT_OG_TYPES.test(ogType)) return true;
  let items = 0;
  for (const el of doc.querySelectorAll('[itemtype]'))
    if (PRODUCT_ITEMTYPE.test(el.getAttribute('itemtype') ?? '')) items++;
  return items === 1 || sellsOneItem(doc);
}

/** A page that declares nothing but has a few add-to-cart buttons, each named so by its id, name, value or label. */
function sellsOneItem(doc: Document): boolean {
  let buttons = 0;
  for (const el of doc.querySelectorAll('button, input[type="submit"], input[type="button"]')) {
    const label = `${el.id} ${el.getAttribute('name') ?? ''} ${el.getAttribute('value') ?? ''} ${el.textContent ?? ''}`;
    if (ADD_TO_CART.test(label) && ++buttons > MAX_BUY_BUTTONS) return false;
  }
  return buttons > 0;
}

/** Tags a document (and a re-parse of the same page) with its page's type, for the rules that depend on it. */
export function setPageType(doc: Document, type: PageType): void {
  pageTypes.set(doc, type);
}

export function pageTypeOf(doc: Document): PageType {
  return pageTypes.get(doc) ?? 'other';
}
