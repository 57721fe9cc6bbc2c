// A page that declares an article (og:type article is most sites' default) but is built like a landing page: its
// content is spread over sibling sections (features, pricing, FAQ), of which Readability keeps one or two.

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
