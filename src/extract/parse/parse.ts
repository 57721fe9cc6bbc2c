// Parses any HTML string into a linkedom document with <html>, <head> and <body>: linkedom does not add missing
// ones (old pages, fragments), and Readability throws or finds nothing without them. Scripts, styles, SVG and
// comments are cut from the string first: they are ~60% of a news page's bytes, and never content. The JSON-LD
// scripts among them are handed to metadata.ts on the way, and MathJax's TeX scripts stay as spans for math.ts.
import { DOMParser } from 'linkedom';
import { parseBySpec } from './spec-parse.js';
import { showNoscriptContent } from './noscript.js';
import { revealStreamedSegments, streamsSuspense, suspenseMarker } from './streamed.js';

const INERT_OPENER = /<(script|style|svg)\b|<!--/gi;
/** Where each opened element ends; searched with a regex rather than indexOf on a lower-cased copy of the page. */
const INERT_CLOSER: Record<string, RegExp> = {
  script: /<\/script/gi,
  style: /<\/style/gi,
  svg: /<\/svg/gi,
  '': /-->/g,
};

const JSON_LD_TYPE = /\btype\s*=\s*["']?application\/ld\+json/i;
/** Larger blocks are catalogues rather than a description of the page, and would cost a JSON.parse of that size. */
const MAX_JSON_LD_CHARS = 1_000_000;

/**
 * MathJax 2 keeps each formula's TeX in a script (`math/tex`, `math/tex; mode=display`), the only copy in a static
 * page.
 */
const MATH_TEX_TYPE = /\btype\s*=\s*["']?math\/tex(\s*;\s*mode\s*=\s*display)?/i;
const SCRIPT_ID = /\bid\s*=\s*["']?([\w:.-]{1,100})/i;

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A TeX script as `<span data-math-tex="inline|display">TeX</span>` (with the script's id, see math.ts), else ''. */
function keepMathTex(html: string, start: number, close: number): string {
  const openerEnd = html.indexOf('>', start);
  if (openerEnd === -1 || openerEnd >= close) return '';
  const opener = html.slice(start, openerEnd);
  const type = MATH_TEX_TYPE.exec(opener);
  if (!type) return '';
  const id = SCRIPT_ID.exec(opener)?.[1];
  const attributes = `data-math-tex="${type[1] ? 'display' : 'inline'}"${id ? ` data-math-tex-for="${id}"` : ''}`;
  return `<span ${attributes}>${escapeText(html.slice(openerEnd + 1, close))}</span>`;
}

/** Keeps the text of a <script type="application/ld+json">: data about the page, which the DOM will not have. */
function collectJsonLd(html: string, start: number, close: number, into: string[]): void {
  const openerEnd = html.indexOf('>', start);
  if (openerEnd === -1 || openerEnd >= close || close - openerEnd > MAX_JSON_LD_CHARS) return;
  if (JSON_LD_TYPE.test(html.slice(start, openerEnd))) into.push(html.slice(openerEnd + 1, close));
}

/**
 * Removes <script>, <style>, <svg> elements and comments in one linear pass (a backtracking regex could take
 * quadratic time on a page full of unclosed tags). An unclosed script, style or comment runs to the end of the page,
 * as it does for an HTML parser. The text of JSON-LD scripts goes into `jsonLd` when given; a MathJax TeX script
 * becomes a span holding its TeX.
 */
export function stripInertMarkup(html: string, jsonLd?: string[]): string {
  const parts: string[] = [];
  let kept = 0;
  // One scan of the page spares a look at every script's attributes on the pages (nearly all) without TeX.
  const hasTex = html.includes('math/tex');
  const streams = streamsSuspense(html);
  // Once an <svg> has no closing tag, no later one has: stop searching, or every further <svg> would scan to the end.
  let svgClosable = true;
  INERT_OPENER.lastIndex = 0;
  for (let match = INERT_OPENER.exec(html); match; match = INERT_OPENER.exec(html)) {
    const tag = match[1]?.toLowerCase() ?? '';
    if (tag === 'svg' && !svgClosable) continue;
    const closer = INERT_CLOSER[tag]!;
    closer.lastIndex = match.index + match[0].length;
    const close = closer.exec(html);
    if (!close) {
      if (tag === 'svg') {
        svgClosable = false;
        continue;
      }
      parts.push(html.slice(kept, match.index));
      return parts.join('');
    }
    if (jsonLd && tag === 'script') collectJsonLd(html, match.index, close.index, jsonLd);
    const end = tag ? html.indexOf('>', close.index) : close.index + 2;
    parts.push(html.slice(kept, match.index));
    if (hasTex && tag === 'script') parts.push(keepMathTex(html, match.index, close.index));
    if (streams && tag === '') parts.push(suspenseMarker(html.slice(match.index + 4, close.index)));
    kept = end === -1 ? html.length : end + 1;
    INERT_OPENER.lastIndex = kept;
  }
  parts.push(html.slice(kept));
  return parts.join('');
}

// Every `[^>]` run is bounded: unbounded, a page of `<html <html <html…` with no `>` makes each regex quadratic.
const HTML_OPEN = /<html\b[^<>]{0,4096}>/i;
const BODY_OPEN = /<body\b[^<>]{0,4096}>/i;
const HEAD_OPEN = /<head\b[^<>]{0,4096}>/i;
/**
 * Head-only elements at the start of a page that has no <head>: they belong there (a <title> in <body> is no title).
 */
const LEADING_HEAD_ELEMENTS =
  /^(?:\s+|<!doctype[^<>]{0,4096}>|<\?xml[^<>]{0,4096}>|<html\b[^<>]{0,4096}>|<title\b[^<>]{0,4096}>[^<]{0,4096}<\/title\s*>|<(?:meta|link|base)\b[^<>]{0,4096}>)*/i;
const STRUCTURE_TAGS = /<!doctype[^<>]{0,4096}>|<\?xml[^<>]{0,4096}>|<\/?(?:html|body|head)\b[^<>]{0,4096}>/gi;

/** The first <head>…</head>, found with indexOf so that a page of unclosed <head> tags stays linear. */
function findHead(source: string): { start: number; end: number; inner: string } | null {
  const open = HEAD_OPEN.exec(source);
  if (!open) return null;
  const innerStart = open.index + open[0].length;
  const close = source.toLowerCase().indexOf('</head', innerStart);
  if (close === -1) return null;
  const closeEnd = source.indexOf('>', close);
  return {
    start: open.index,
    end: closeEnd === -1 ? source.length : closeEnd + 1,
    inner: source.slice(innerStart, close),
  };
}

/**
 * Strips inert markup and rebuilds the skeleton when <html> or <body> is missing, keeping their attributes and the
 * head.
 */
export function normaliseHtml(html: string, jsonLd?: string[]): string {
  const source = stripInertMarkup(html.replace(/\uFEFF/g, ''), jsonLd);
  const htmlTag = HTML_OPEN.exec(source);
  const bodyTag = BODY_OPEN.exec(source);
  if (htmlTag && bodyTag && htmlTag.index < bodyTag.index) return source;
  const headBlock = findHead(source);
  let head: string;
  let rest: string;
  if (headBlock) {
    head = headBlock.inner;
    rest = source.slice(0, headBlock.start) + source.slice(headBlock.end);
  } else {
    const leading = LEADING_HEAD_ELEMENTS.exec(source)?.[0] ?? '';
    head = leading.replace(STRUCTURE_TAGS, '');
    rest = source.slice(leading.length);
  }
  const body = rest.replace(STRUCTURE_TAGS, '');
  return (
    `<!DOCTYPE ` +
    `html>${htmlTag?.[0] ?? '<html>'}<head>${head}</head>${bodyTag?.[0] ?? '<body>'}${body}</body></html>`
  );
}

/**
 * Real pages nest under ~50 deep (49 at most on the benchmark). Thousands of levels (unclosed tags, hostile input)
 * make Readability and descendant selectors take quadratic time, seconds to minutes per page.
 */
const MAX_DEPTH = 400;

/** Walks the elements without recursion (a deep tree would overflow the stack), stopping at the first too deep. */
function isNestedDeeperThan(root: Element, limit: number): boolean {
  let depth = 0;
  let el: Element | null = root;
  while (el) {
    const child: Element | null = el.firstElementChild;
    if (child) {
      if (++depth > limit) return true;
      el = child;
      continue;
    }
    while (el && el !== root && !el.nextElementSibling) {
      el = el.parentElement;
      depth--;
    }
    if (!el || el === root) return false;
    el = el.nextElementSibling;
  }
  return false;
}

/** Throws on a document nested too deep to extract from; extractHtml then falls back to the page's text. */
export function assertNestingDepth(doc: Document): void {
  if (isNestedDeeperThan(doc.documentElement, MAX_DEPTH))
    throw new RangeError(`elements nested more than ${MAX_DEPTH} deep`);
}

const SKELETON_TAG = /<(\/?)(html|head|body)\b[^<>]{0,4096}>/gi;
/** What may sit in a <head>: anything else there makes a browser close the head and open the body. */
const HEAD_TAG = /<\/?([a-z][\w-]*)[^<>]{0,4096}>/gi;
const HEAD_ELEMENTS = new Set(['title', 'meta', 'link', 'base', 'style', 'script', 'noscript', 'template']);
/**
 * A <title>, and a <noscript> whose content (a tracking pixel, an iframe) would end a browser's head early without
 * moving any text: both are taken out before the head is checked.
 */
const TITLE_ELEMENT =
  /<title\b[^<>]{0,4096}>[^<]{0,100000}<\/title\s*>|<noscript\b[^<>]{0,4096}>(?:[^<]|<(?!\/?noscript\b)){0,10000}<\/noscript\s*>/gi;
/** After </body>: stray closing tags change nothing; anything else would move into the body. */
const CLOSING_TAGS = /<\/[a-z][\w-]*\s*>/gi;
const PROLOGUE = /^(?:\s|<!doctype[^<>]{0,4096}>|<\?xml[^<>]{0,4096}>)*$/i;

/** True when `between` (text between skeleton tags) holds nothing but whitespace or, in a head, head elements. */
function holdsOnlyHead(between: string): boolean {
  const rest = between.replace(TITLE_ELEMENT, '');
  HEAD_TAG.lastIndex = 0;
  for (let tag = HEAD_TAG.exec(rest); tag; tag = HEAD_TAG.exec(rest)) {
    if (!HEAD_ELEMENTS.has(tag[1]!.toLowerCase())) return false;
  }
  return rest.replace(HEAD_TAG, '').trim() === '';
}

/**
 * True when the page is laid out `<html><head>…</head><body>…</body></html>`, each once, with nothing out of place
 * between them: linkedom's parser (htmlparser2, faster than parse5 by half) builds such pages as a browser does. On
 * any other skeleton it builds a tree with an empty or partial body, so those go to parseBySpec.
 */
export function hasPlainSkeleton(html: string): boolean {
  const tags: { close: boolean; name: string; start: number; end: number }[] = [];
  SKELETON_TAG.lastIndex = 0;
  for (let tag = SKELETON_TAG.exec(html); tag; tag = SKELETON_TAG.exec(html)) {
    if (tags.length === 8) return false;
    tags.push({ close: tag[1] === '/', name: tag[2]!.toLowerCase(), start: tag.index, end: tag.index + tag[0].length });
  }
  const shape = tags.map((t) => `${t.close ? '/' : ''}${t.name}`).join(' ');
  // </body> and </html> may be missing: the parser closes them at the end of the page.
  if (!/^html head \/head body(?: \/body)?(?: \/html)?$/.test(shape)) return false;
  if (!PROLOGUE.test(html.slice(0, tags[0]!.start))) return false;
  if (html.slice(tags[0]!.end, tags[1]!.start).trim() !== '') return false;
  if (!holdsOnlyHead(html.slice(tags[1]!.end, tags[2]!.start))) return false;
  if (html.slice(tags[2]!.end, tags[3]!.start).trim() !== '') return false;
  // Text after </body> belongs to the body in a browser; linkedom puts it beside the body.
  const closing = tags[4];
  return !closing || html.slice(closing.end).replace(CLOSING_TAGS, '').trim() === '';
}

/**
 * Parses HTML that went through normaliseHtml (kept separate so a second parse of the same page skips that pass):
 * with linkedom's own parser when the skeleton is plain, with the WHATWG rules (parse5) into linkedom otherwise.
 * A noscript holding the page's text is unwrapped (noscript.ts).
 */
export function parseDocument(normalisedHtml: string): Document {
  const doc = hasPlainSkeleton(normalisedHtml)
    ? (new DOMParser().parseFromString(normalisedHtml, 'text/html') as unknown as Document)
    : parseBySpec(normalisedHtml);
  showNoscriptContent(doc);
  revealStreamedSegments(doc);
  return doc;
}
