// How much of its page an element holds: the check every noise rule makes before it drops a wrapper by its name.

/** Characters of text without whitespace: amounts of text compared across markup laid out differently. */
export function compactLength(text: string | null): number {
  return (text ?? '').replace(/\s+/g, '').length;
}

/** A named element holding this share of the page's text wraps the content, whatever its name says. */
const MOST_OF_PAGE = 0.5;
const pageTextLengths = new WeakMap<Document, number>();

/**
 * True when el holds most of its page's text: a wrapper that happens to carry a noise name (`share_wrapper`,
 * `has-sidebar` around an article) is never dropped by that name. The page's length is measured once per document.
 */
export function holdsMostOfPage(el: Element): boolean {
  const doc = el.ownerDocument;
  let pageLength = pageTextLengths.get(doc);
  if (pageLength === undefined) {
    pageLength = (doc.body?.textContent ?? '').length;
    pageTextLengths.set(doc, pageLength);
  }
  return pageLength > 0 && (el.textContent ?? '').length >= MOST_OF_PAGE * pageLength;
}
