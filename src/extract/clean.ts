// Prepares the main-content element for Markdown conversion: absolute URLs, no data: URIs, code blocks with their
// language, layout tables unwrapped, and the few elements converters would pass through as raw HTML rewritten.
import { rebuildCodeBlocks } from './code-language.js';

const DROPPED = 'script, style, noscript, template, iframe, svg, canvas, object, embed, source, button, input, select, textarea, link, meta';
/** Elements mdream would pass through as raw HTML and that mean nothing in Markdown: their text is kept, the tag is not. */
const UNWRAPPED = 'u, ins, mark, address';
const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original', 'data-url'];
const UNSAFE_SCHEME = /^\s*(?:data|javascript|vbscript):/i;

function resolveUrl(raw: string, baseUrl: string): string | null {
  const value = raw.trim();
  if (value === '' || UNSAFE_SCHEME.test(value)) return null;
  try {
    return new URL(value, baseUrl).href;
  } catch {
    return null;
  }
}

function unwrap(el: Element): void {
  el.replaceWith(...Array.from(el.childNodes));
}

/** Replaces el by a new `tag` element holding the same children. */
function retag(el: Element, tag: string): Element {
  const replacement = el.ownerDocument.createElement(tag);
  replacement.append(...Array.from(el.childNodes));
  el.replaceWith(replacement);
  return replacement;
}

/** The first usable image URL, looking at lazy-loading attributes when src is missing or a data: placeholder. */
function pickImageSource(img: Element, baseUrl: string): string | null {
  const srcset = img.getAttribute('srcset') ?? img.getAttribute('data-srcset') ?? '';
  const candidates = [img.getAttribute('src'), ...LAZY_SOURCES.map((name) => img.getAttribute(name)), srcset.trim().split(/\s/)[0]];
  for (const candidate of candidates) {
    const url = candidate ? resolveUrl(candidate, baseUrl) : null;
    if (url) return url;
  }
  return null;
}

function fixUrls(root: Element, baseUrl: string): void {
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = pickImageSource(img, baseUrl);
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
    if (!link.querySelector('img') && (link.textContent ?? '').trim() === '') link.remove();
    else if (!href) unwrap(link);
    else link.setAttribute('href', href);
  }
}

/** Readability's test (role, caption, header cells, size), so that layout grids do not become GFM tables. */
function isDataTable(table: Element): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return false;
  if (table.getAttribute('summary') || table.querySelector('caption, thead, th, col, colgroup, tfoot')) return true;
  if (table.querySelector('table')) return false;
  const rows = Array.from(table.querySelectorAll('tr'));
  const columns = Math.max(0, ...rows.map((row) => row.children.length));
  if (rows.length <= 1 || columns <= 1) return false;
  return rows.length >= 10 || columns > 4 || rows.length * columns > 10;
}

function unwrapLayoutTable(table: Element): void {
  for (const cell of Array.from(table.querySelectorAll('td, th'))) {
    if (cell.closest('table') === table) retag(cell, 'div');
  }
  for (const part of Array.from(table.querySelectorAll('tr, tbody, thead, tfoot, caption'))) {
    if (part.closest('table') === table) unwrap(part);
  }
  retag(table, 'div');
}

/** GFM cells hold one line: lists and paragraphs inside a data cell become inline text. */
function flattenCells(table: Element): void {
  const doc = table.ownerDocument;
  for (const item of Array.from(table.querySelectorAll('td li, th li'))) item.prepend(doc.createTextNode(' • '));
  for (const block of Array.from(table.querySelectorAll('td *, th *'))) {
    if (/^(?:P|DIV|UL|OL|LI|H[1-6]|BLOCKQUOTE|PRE|DL|DT|DD|SECTION|FIGURE|FIGCAPTION)$/.test(block.tagName)) {
      block.append(doc.createTextNode(' '));
      unwrap(block);
    } else if (block.tagName === 'BR') block.replaceWith(doc.createTextNode(' '));
  }
}

function rewriteTables(root: Element): void {
  // Innermost first, so a layout table's nested data tables are judged on their own.
  for (const table of Array.from(root.querySelectorAll('table')).reverse()) {
    if (isDataTable(table) && !table.querySelector('table')) flattenCells(table);
    else unwrapLayoutTable(table);
  }
  // Readability renames the layout table it picks to a <div>, leaving its rows and cells without a table.
  for (const part of Array.from(root.querySelectorAll('tr, td, th, tbody, thead, tfoot'))) {
    if (part.closest('table')) continue;
    if (part.tagName === 'TD' || part.tagName === 'TH') retag(part, 'div');
    else unwrap(part);
  }
}

/** Definition lists and <details> have no GFM form: terms become bold paragraphs, definitions paragraphs. */
function rewriteBlocks(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('dt, summary'))) {
    const p = retag(el, 'p');
    const strong = root.ownerDocument.createElement('strong');
    strong.append(...Array.from(p.childNodes));
    p.append(strong);
  }
  for (const el of Array.from(root.querySelectorAll('dd'))) retag(el, 'p');
  for (const el of Array.from(root.querySelectorAll('dl, details'))) unwrap(el);
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
    for (const block of Array.from(link.querySelectorAll('p, div, section, article, header, figure, figcaption, ul, ol, li'))) {
      block.append(root.ownerDocument.createTextNode(' '));
      unwrap(block);
    }
  }
}

/** A heading is one line of plain words: line breaks become spaces, and bold says nothing more (header cells too). */
function simplifyHeadings(root: Element): void {
  const doc = root.ownerDocument;
  for (const heading of Array.from(root.querySelectorAll('h1, h2, h3, h4, h5, h6, th'))) {
    if (!heading.firstElementChild) continue;
    for (const br of Array.from(heading.getElementsByTagName('br'))) br.replaceWith(doc.createTextNode(' '));
    for (const bold of Array.from(heading.querySelectorAll('b, strong'))) unwrap(bold);
  }
}

export function cleanContent(root: Element, baseUrl: string): void {
  for (const el of Array.from(root.querySelectorAll(DROPPED))) el.remove();
  rebuildCodeBlocks(root);
  fixUrls(root, baseUrl);
  rewriteTables(root);
  rewriteBlocks(root);
  fixBlocksInLinks(root);
  simplifyHeadings(root);
  tightenEmphasis(root);
  for (const el of Array.from(root.querySelectorAll(UNWRAPPED))) unwrap(el);
}
