// What kind of page this is, from what it says about itself: the extraction profile switches on it (a forum thread
// keeps every post, where an article's comment section goes). Only the kinds whose profile differs are told apart.
import { readJsonLdTypes } from './jsonld.js';

export type PageType = 'forum' | 'other';

/** schema.org types that only a discussion declares: a thread, a question with its answers, a comment. */
const FORUM_TYPES = /^(?:DiscussionForumPosting|QAPage)$/;
const FORUM_ITEMTYPES = /schema\.org\/(?:DiscussionForumPosting|QAPage|Comment)\b/i;

const pageTypes = new WeakMap<Document, PageType>();

/** Reads the page's declared type from its JSON-LD (the blocks parse.ts cut out) and microdata. */
export function detectPageType(doc: Document, jsonLd: readonly string[]): PageType {
  if ([...readJsonLdTypes(jsonLd)].some((type) => FORUM_TYPES.test(type))) return 'forum';
  for (const el of doc.querySelectorAll('[itemtype]')) {
    if (FORUM_ITEMTYPES.test(el.getAttribute('itemtype') ?? '')) return 'forum';
  }
  return 'other';
}

/** Tags a document (and a re-parse of the same page) with its page's type, for the rules that depend on it. */
export function setPageType(doc: Document, type: PageType): void {
  pageTypes.set(doc, type);
}

export function pageTypeOf(doc: Document): PageType {
  return pageTypes.get(doc) ?? 'other';
}
