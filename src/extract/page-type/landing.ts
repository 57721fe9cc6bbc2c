// A page that declares an article (og:type article is most sites' default) but is built like a landing page: its
// content is spread over sibling sections (features, pricing, FAQ), of which Readability keeps one or two. Also a
// page whose own JSON-LD says it is a page, not a post.
import { ARTICLE_TYPES, readJsonLdTypes } from '../metadata/jsonld.js';

/** Sections each opened by their own heading: a news story has a few at most, a service page a dozen or more. */
const LANDING_SECTIONS = 10;

/**
 * True when an article-declared page is built of many headed sections. Such a page's Readability pick must cover as
 * much of the page as an undeclared page's.
 */
export function looksLikeLandingPage(doc: Document): boolean {
  let sections = 0;
  for (const section of doc.querySelectorAll('section')) {
    if (section.querySelector('h1, h2, h3, h4') !== null && ++sections >= LANDING_SECTIONS) return true;
  }
  return false;
}

/**
 * True when only og:type calls the page an article while its JSON-LD types it a page (WebPage, CollectionPage…; no
 * Article node) and it names no author: SEO plugins write og:type article on every page of a site and an Article
 * node, with its author, only for posts, so this is one of the site's pages (a service, a catalogue, a guide), held
 * to the same coverage.
 */
export function declaresPageNotPost(jsonLd: readonly string[], author: string | null): boolean {
  if (author !== null) return false;
  const types = [...readJsonLdTypes(jsonLd)];
  return types.some((type) => type.endsWith('Page')) && !types.some((type) => ARTICLE_TYPES.test(type));
}
