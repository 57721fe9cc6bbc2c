// How much of its page an element holds: the check every noise rule makes before it drops a wrapper by its name.

/** Characters of text without whitespace: amounts of text compared across markup laid out differently. */
export function compactLength(text: string | null): number {
  return (text ?? '').replace(/\s+/g, '').length;
}

/** A named element holding this share of the page's text wraps the content, whatever its name says. */
const MOST_OF_PAGE = 0.5;
/**
 * Paragraph text a page needs before its paragraphs say where the content is (two long articles' worth): below it, a
 * banner's or a sidebar's paragraphs may be most of the page's prose. On WCXB dev 500 and 1,000 also kept a product's
 * reviews and a thread's sidebar.
 */
const MIN_PAGE_PROSE = 2000;

interface PageLengths {
  text: number;
  prose: number;
}
// Measured once per document, whose lifetime (one extraction) is the memo's: a WeakMap.
const pageLengths = new WeakMap<Document, PageLengths>();

function proseLength(root: Element): number {
  let length = root.tagName === 'P' ? (root.textContent ?? '').length : 0;
  for (const p of root.querySelectorAll('p')) length += (p.textContent ?? '').length;
  return length;
}

function lengthsOf(doc: Document): PageLengths {
  let lengths = pageLengths.get(doc);
  if (lengths === undefined) {
    lengths = doc.body
      ? { text: (doc.body.textContent ?? '').length, prose: proseLength(doc.body) }
      : { text: 0, prose: 0 };
    pageLengths.set(doc, lengths);
  }
  return lengths;
}

/**
 * True when el holds most of its page's text, or most of its paragraphs: a wrapper that happens to carry a noise name
 * (`share_wrapper`, `has-sidebar` or `sidebar-layout` around an article) is never dropped by that name. Paragraphs
 * count apart because menus, footers and hidden copies can outweigh an article's text but seldom its prose. The
 * page's lengths are measured once per document.
 */
export function holdsMostOfPage(el: Element): boolean {
  const page = lengthsOf(el.ownerDocument);
  if (page.text > 0 && (el.textContent ?? '').length >= MOST_OF_PAGE * page.text) return true;
  return page.prose >= MIN_PAGE_PROSE && proseLength(el) >= MOST_OF_PAGE * page.prose;
}
