// Prepares the main-content element for Markdown conversion: absolute URLs, no data: URIs or tracking pixels, code
// blocks with their language, formulas, footnotes, tables, figures and definition lists in a form Markdown can hold,
// and
// the few elements converters would pass through as raw HTML rewritten.
import { isSkipLink } from '../content/boilerplate.js';
import { removeChromeLines } from './chrome-lines.js';
import { fenceCodeBlocks, rebuildCodeBlocks } from './code-language.js';
import { rewriteDefinitionLists } from './definition-lists.js';
import { retag, unwrap } from '../dom.js';
import { rewriteFootnotes } from './footnotes.js';
import { separateListItemBlocks } from './list-items.js';
import { rewriteMath } from './math.js';
import { collapseRepeatedCopies } from './repeats.js';
import { rewriteTables } from './tables.js';
import { createVerbatim } from '../markdown/verbatim.js';

/** A <video>'s or <audio>'s text is what browsers that cannot play it show ("Your browser does not support…"). */
const DROPPED =
  'script, style, noscript, template, iframe, svg, canvas, object, embed, source, video, audio, button, ' +
  'input, select, textarea, link, meta';
/**
 * Elements mdream would pass through as raw HTML and that mean nothing in Markdown: their text is kept, the tag is not.
 */
const UNWRAPPED = 'u, ins, mark, address';
const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original', 'data-url'];
const UNSAFE_SCHEME = /^\s*(?:data|javascript|vbscript):/i;
/** A width or height of 0 or 1 pixel: a tracking pixel or a spacer, never a picture. */
const TINY_SIZE = /^\s*[01](?:\.0*)?\s*(?:px)?\s*$/i;
const TINY_STYLE = /(?:^|;)\s*(?:width|height)\s*:\s*[01](?:\.0*)?(?:px)?\s*(?:;|$)/i;
/** A link to a picture file: around an image, it only opens that image (larger), which Markdown shows already. */
const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)$/i;

function resolveUrl(raw: string, baseUrl: string): string | null {
  const value = raw.trim();
  if (value === '' || UNSAFE_SCHEME.test(value)) return null;
  try {
    return new URL(value, baseUrl).href;
  } catch {
    return null;
  }
}

/** The first usable image URL, looking at lazy-loading attributes when src is missing or a data: placeholder. */
function pickImageSource(img: Element, baseUrl: string): string | null {
  const srcset = img.getAttribute('srcset') ?? img.getAttribute('data-srcset') ?? '';
  const candidates = [
    img.getAttribute('src'),
    ...LAZY_SOURCES.map((name) => img.getAttribute(name)),
    srcset.trim().split(/\s/)[0],
  ];
  for (const candidate of candidates) {
    const url = candidate ? resolveUrl(candidate, baseUrl) : null;
    if (url) return url;
  }
  return null;
}

function isTrackingPixel(img: Element): boolean {
  const [width, height, style] = [img.getAttribute('width'), img.getAttribute('height'), img.getAttribute('style')];
  return (
    (width !== null && TINY_SIZE.test(width)) ||
    (height !== null && TINY_SIZE.test(height)) ||
    (style !== null && TINY_STYLE.test(style))
  );
}

/** The one image a link holds and nothing else, if any. */
function soleImage(link: Element): Element | null {
  const img = link.querySelector('img');
  if (!img || link.querySelectorAll('img').length > 1 || (link.textContent ?? '').trim() !== '') return null;
  return img;
}

/** A link around an image that leads to that same image, or to another file of it, adds nothing to the image. */
function linksToItsImage(href: string, img: Element): boolean {
  if (href === img.getAttribute('src')) return true;
  try {
    return IMAGE_FILE.test(new URL(href).pathname);
  } catch {
    return false;
  }
}

function fixUrls(root: Element, baseUrl: string): void {
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = isTrackingPixel(img) ? null : pickImageSource(img, baseUrl);
    if (!src) {
      img.remove();
      continue;
    }
    const alt = img.getAttribute('alt') ?? '';
    for (const name of img.getAttributeNames()) img.removeAttribute(name);
    img.setAttribute('src', src);
    img.setAttribute('alt', alt.replace(/\s+/g, ' ').trim());
  }
  for (const link of Array.from(root.querySelectorAll('a'))) {
    const href = resolveUrl(link.getAttribute('href') ?? '', baseUrl);
    const image = soleImage(link);
    // A link with no text goes, but a space in it may be all that parts two words.
    const empty = !link.querySelector('img') && (link.textContent ?? '').trim() === '';
    if (empty || !href || (image && linksToItsImage(href, image))) unwrap(link);
    else link.setAttribute('href', href);
  }
}

/** Text compared as a reader would: case, spacing and closing punctuation aside. */
function normaliseText(text: string | null): string {
  return (text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '')
    .toLowerCase();
}

/**
 * A figure is its image, then its caption as a plain paragraph (mdream would italicise it, which breaks on emphasis
 * inside). A caption that only repeats the image's alt text goes: the alt text already says it, in place.
 */
function rewriteFigures(root: Element): void {
  for (const caption of Array.from(root.querySelectorAll('figcaption'))) {
    const figure = caption.closest('figure');
    const text = normaliseText(caption.textContent);
    const images = figure ? Array.from(figure.querySelectorAll('img')) : [];
    if (text === '' || images.some((img) => normaliseText(img.getAttribute('alt')) === text)) {
      caption.remove();
      continue;
    }
    const paragraph = retag(caption, 'p');
    if (figure && images.length > 0) figure.append(paragraph);
  }
}

/**
 * Two lists in a row would read as one list in Markdown (and the second's numbers as the first's): a comment splits
 * them.
 */
function separateAdjacentLists(root: Element): void {
  for (const list of Array.from(root.querySelectorAll('ul, ol'))) {
    let next = list.nextSibling;
    while (next && next.nodeType === 3 && (next.nodeValue ?? '').trim() === '') next = next.nextSibling;
    if (next?.nodeType !== 1 || (next as Element).tagName !== list.tagName) continue;
    const separator = list.ownerDocument.createElement('p');
    separator.append(createVerbatim(list.ownerDocument, '<!-- -->'));
    list.after(separator);
  }
}

/** Inline elements that may hold nothing but a space between two words. */
const INLINE_SPACERS = 'span, label, small, big, font, abbr, cite, q, time, data';

/** mdream drops an inline element that holds only whitespace (`word<span> </span>word`), joining the two words. */
function unwrapSpaces(root: Element): void {
  // Innermost first, so an element around an unwrapped one is then seen holding only its space.
  for (const el of Array.from(root.querySelectorAll(INLINE_SPACERS)).reverse()) {
    if (el.firstElementChild) continue;
    const text = el.textContent ?? '';
    if (text !== '' && text.trim() === '') unwrap(el);
  }
}

const WORD_END = /[\p{L}\p{N}]$/u;
/** A span that starts with a capital or a digit starts a new word; one in lower case may end the word before it. */
const FIELD_START = /^[\p{Lu}\p{Lt}\p{N}]/u;

/**
 * Spans side by side with no space between (`<span>2026</span><span>1h 54m</span>`) are a card's fields that a
 * stylesheet sets apart; run together they make one word of two. Editors also split a word into spans where its
 * formatting changes (`3<span>rd</span>`), so only a span that opens with a capital or a digit gets a space.
 */
function spaceAdjacentSpans(root: Element): void {
  const doc = root.ownerDocument;
  for (const span of Array.from(root.getElementsByTagName('span'))) {
    const next = span.nextSibling;
    if (next?.nodeType !== 1 || (next as Element).tagName !== 'SPAN' || span.closest('pre, code')) continue;
    if (WORD_END.test(span.textContent ?? '') && FIELD_START.test(next.textContent ?? ''))
      span.after(doc.createTextNode(' '));
  }
}

/** True for the nodes that only space things out: whitespace text and <br>. */
function isSpacing(node: ChildNode): boolean {
  return node.nodeType === 3 ? (node.nodeValue ?? '').trim() === '' : (node as Element).tagName === 'BR';
}

/**
 * Whitespace or a line break just inside an emphasis (`<b> word<br></b>`) makes `** word\n**`, which Markdown
 * shows literally: move it out.
 */
function tightenEmphasis(root: Element): void {
  const doc = root.ownerDocument;
  // Innermost first, so spacing moved out of an <em> is then moved out of the <strong> around it.
  for (const el of Array.from(root.querySelectorAll('b, strong, i, em, s, del, strike')).reverse()) {
    // Emphasised punctuation (`<b>,”</b>`) cannot be written as Markdown emphasis, and says nothing anyway.
    if (!/[\p{L}\p{N}]/u.test(el.textContent ?? '') && !el.querySelector('img')) {
      unwrap(el);
      continue;
    }
    while (el.firstChild && isSpacing(el.firstChild)) el.before(el.firstChild);
    while (el.lastChild && isSpacing(el.lastChild)) el.after(el.lastChild);
    const first = el.firstChild;
    if (first?.nodeType === 3 && /^\s/.test(first.nodeValue ?? '')) {
      first.nodeValue = (first.nodeValue ?? '').trimStart();
      el.before(doc.createTextNode(' '));
    }
    const last = el.lastChild;
    if (last?.nodeType === 3 && /\s$/.test(last.nodeValue ?? '')) {
      last.nodeValue = (last.nodeValue ?? '').trimEnd();
      el.after(doc.createTextNode(' '));
    }
  }
}

/**
 * Block elements inside a link come out as raw HTML: a link around a heading (teaser cards) moves inside the heading,
 * around other blocks it makes them inline.
 */
function fixBlocksInLinks(root: Element): void {
  for (const link of Array.from(root.getElementsByTagName('a'))) {
    if (!link.firstElementChild) continue;
    const headings = Array.from(link.querySelectorAll('h1, h2, h3, h4, h5, h6'));
    if (headings.length > 0) {
      for (const heading of headings) {
        const inner = link.cloneNode(false) as Element;
        inner.append(...Array.from(heading.childNodes));
        heading.append(inner);
      }
      unwrap(link);
      continue;
    }
    for (const block of Array.from(
      link.querySelectorAll('p, div, section, article, header, figure, figcaption, ul, ol, li'),
    )) {
      block.append(root.ownerDocument.createTextNode(' '));
      unwrap(block);
    }
  }
}

/**
 * A heading is one line of plain words: line breaks become spaces, and bold says nothing more. In a header cell, bold
 * goes too, but a line break stays `<br>`, as in any cell.
 */
function simplifyHeadings(root: Element): void {
  const doc = root.ownerDocument;
  for (const heading of Array.from(root.querySelectorAll('h1, h2, h3, h4, h5, h6, th'))) {
    if (!heading.firstElementChild) continue;
    if (heading.tagName !== 'TH') {
      for (const br of Array.from(heading.getElementsByTagName('br'))) br.replaceWith(doc.createTextNode(' '));
    }
    for (const bold of Array.from(heading.querySelectorAll('b, strong'))) unwrap(bold);
  }
}

export function cleanContent(root: Element, baseUrl: string): void {
  for (const el of Array.from(root.querySelectorAll(DROPPED))) el.remove();
  // Whatever route picked the content, a jump past the menus is never part of it.
  for (const link of Array.from(root.querySelectorAll('a[href^="#"]'))) if (isSkipLink(link)) link.remove();
  collapseRepeatedCopies(root);
  removeChromeLines(root);
  rebuildCodeBlocks(root);
  // Before the tables: a formula or a footnote mark may sit in a cell.
  rewriteMath(root);
  rewriteFootnotes(root, baseUrl);
  fixUrls(root, baseUrl);
  rewriteFigures(root);
  rewriteTables(root);
  rewriteDefinitionLists(root);
  fixBlocksInLinks(root);
  simplifyHeadings(root);
  tightenEmphasis(root);
  unwrapSpaces(root);
  spaceAdjacentSpans(root);
  separateAdjacentLists(root);
  separateListItemBlocks(root);
  for (const el of Array.from(root.querySelectorAll(UNWRAPPED))) unwrap(el);
  // Last: the tables above turn code in cells into inline code, and nothing may look inside a block after this.
  fenceCodeBlocks(root);
}
