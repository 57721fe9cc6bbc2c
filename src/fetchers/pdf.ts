// The PDF fetcher: pdf.js (Mozilla, Apache-2.0) reads the text layer page by page; pdf-layout.ts turns positioned runs
// into Markdown. Chosen over MuPDF (faster, but AGPL-3.0 and table cells one per line): docs/benchmarks-log.md has
// the figures.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { normalisePdfDate } from '../extract/metadata/dates.js';
import { markdownToText } from '../extract/index.js';
import type { FetchFailure } from '../errors.js';
import type { HttpResponse } from '../net/safe-client.js';
import { ocrScannedPages } from './documents/pdf-ocr.js';
import { hasPdfMagic } from './documents/sniff.js';
import { statusFailure } from './html.js';
import { layoutPages, type TextRun } from './pdf-layout.js';
import { failed, type DocumentRequest, type FetchOutcome, type PageRange } from './types.js';

/**
 * Letters and digits per page below which a PDF has no text layer. A page of body text has 1,500–3,000; a scanned
 * page carries at most a page number, a stamp or a few OCR-less header characters.
 */
export const NO_TEXT_CHARS_PER_PAGE = 20;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
// Loaded on the first PDF: 1.5 MB of code that most processes never need.
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

export interface PdfOptions extends DocumentRequest {
  maxPages: number;
  /** Pages without a text layer read by OCR (documents/pdf-ocr.ts); 0 or none: no OCR. */
  maxOcrPages?: number;
}

/** The page numbers a caller wants, in order: all, or those of `pages` that the PDF has. */
export function pagesWanted(pageCount: number, pages: readonly PageRange[] | undefined): number[] {
  const wanted = new Set<number>();
  for (const { first, last } of pages ?? [{ first: 1, last: pageCount }])
    for (let n = first; n <= Math.min(last, pageCount); n++) wanted.add(n);
  return [...wanted].sort((a, b) => a - b);
}

/** Pages read around a part so that its running heads repeat and its heading sizes compare as in the whole. */
const CONTEXT_PAGES = 4;
/** How far from the pages read their context is looked for. */
const CONTEXT_REACH = 5;

/** The pages nearest to those read (not read themselves), when only some are read. */
export function contextPages(pageCount: number, numbers: readonly number[]): number[] {
  const read = new Set(numbers);
  const context: number[] = [];
  for (let d = 1; d <= CONTEXT_REACH && context.length < CONTEXT_PAGES; d++)
    for (const n of numbers)
      for (const near of [n + d, n - d])
        if (
          near >= 1 &&
          near <= pageCount &&
          !read.has(near) &&
          !context.includes(near) &&
          context.length < CONTEXT_PAGES
        )
          context.push(near);
  return context;
}

const describeRanges = (ranges: readonly PageRange[]) =>
  ranges.map(({ first, last }) => (first === last ? `${first}` : `${first}-${last}`)).join(',');

interface PdfInfo {
  Title?: unknown;
  Author?: unknown;
  Subject?: unknown;
  Language?: unknown;
  CreationDate?: unknown;
}

const notPdf = (host: string, detail: string): FetchFailure => ({
  code: 'unsupported_content',
  detail: `${host}: ${detail}`,
  retryable: false,
});

const unreadable = (host: string, why: string): FetchFailure => ({
  code: 'unreadable_document',
  detail: `${host}: the PDF file ${why}`,
  retryable: false,
});

/**
 * Document titles that are a file name, a placeholder or an address (a browser prints a page without a <title> as
 * "about:blank" or its URL), not a title.
 */
export function usableTitle(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const title = value.replace(/\s+/g, ' ').trim();
  if (
    !title ||
    /^(untitled|microsoft (word|powerpoint) - |document\d*$)|\.(docx?|pdf|tex|dvi|indd|pptx?)$/i.test(title) ||
    /^(about|data|file|https?):\S*$/i.test(title)
  )
    return null;
  return title;
}

const str = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/**
 * pdf.js's text items → runs; marked-content entries (which have no `str`) are skipped. A monospaced font is left
 * unnamed: its short lines are code, never headings.
 */
function toRuns(content: { items: readonly object[]; styles: Record<string, { fontFamily?: string }> }): TextRun[] {
  const runs: TextRun[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const {
      str: text,
      transform,
      width,
      hasEOL,
      fontName,
    } = item as { str: string; transform: number[]; width: number; hasEOL: boolean; fontName: string };
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = transform;
    const font = content.styles[fontName]?.fontFamily === 'monospace' ? undefined : fontName;
    runs.push({ str: text, x, y, width, size: Math.hypot(c, d) || Math.hypot(a, b), eol: hasEOL, font });
  }
  return runs;
}

const letters = (s: string) => s.replace(/[^\p{L}\p{N}]+/gu, '').length;

/** The body of a PDF response → page; failures for encrypted, broken and scanned PDFs. */
export async function convertPdf(response: HttpResponse, options: PdfOptions): Promise<FetchOutcome> {
  const host = response.url.host;
  if (response.status >= 300) return failed(statusFailure(response));
  if (!hasPdfMagic(response.body)) return failed(notPdf(host, 'the response is not a PDF (no %PDF- header)'));
  const { getDocument } = await loadPdfJs();
  const task = getDocument({
    data: new Uint8Array(response.body),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    cMapUrl: join(pdfjsRoot, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy();
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') return failed(unreadable(host, 'is password-protected (encrypted)'));
    const cut = response.bodyTruncated
      ? ` (it is larger than FETCH_MAX_BYTES, ${response.bytes} bytes, and was cut there)`
      : '';
    return failed(unreadable(host, `cannot be read: it is corrupt or truncated${cut}`));
  }
  try {
    const pageCount = doc.numPages;
    const wanted = pagesWanted(pageCount, options.pages);
    const numbers = wanted.slice(0, options.maxPages);
    if (numbers.length === 0) {
      const detail = `${host}: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'}, none of pages ${describeRanges(options.pages ?? [])}`;
      return failed({ code: 'empty_content', detail, retryable: false });
    }
    const read = numbers.length;
    const readRuns = async (n: number) => {
      const page = await doc.getPage(n);
      const runs = toRuns(await page.getTextContent());
      page.cleanup();
      // pdf.js parses on this thread: give other requests a turn between pages.
      await yieldToEventLoop();
      return runs;
    };
    const runsPerPage: TextRun[][] = [];
    for (const n of numbers) runsPerPage.push(await readRuns(n));
    const context: TextRun[][] = [];
    for (const n of contextPages(pageCount, numbers)) context.push(await readRuns(n));
    const charsOf = (runs: TextRun[]) => runs.reduce((sum, run) => sum + letters(run.str), 0);
    const chars = runsPerPage.reduce((sum, runs) => sum + charsOf(runs), 0);
    // Pages without a text layer: the scans among them are read by OCR, up to the cap.
    const textless = numbers.filter((_, i) => charsOf(runsPerPage[i]!) < NO_TEXT_CHARS_PER_PAGE);
    const ocrCap = options.maxOcrPages ?? 0;
    const ocr =
      textless.length > 0 && ocrCap > 0
        ? await ocrScannedPages(await loadPdfJs(), doc, textless, ocrCap)
        : { texts: new Map<number, string>(), skipped: 0 };
    const ocrChars = [...ocr.texts.values()].reduce((sum, text) => sum + letters(text), 0);
    if (ocrChars === 0 && chars < NO_TEXT_CHARS_PER_PAGE * read) {
      const why = ocrCap === 0 ? 'and OCR is off (OCR_MAX_PAGES=0)' : 'and OCR found no text on them';
      const detail =
        `${host}: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'} but only ${chars} ` +
        `characters of text: it is scanned images without a text layer, ${why}`;
      return failed({ code: 'no_text_layer', detail, retryable: false });
    }
    const info: PdfInfo = await doc.getMetadata().then(
      (meta) => meta.info,
      () => ({}),
    );
    const laidOut = layoutPages(runsPerPage, context);
    const pages = laidOut.pages.map((md, i) => ocr.texts.get(numbers[i]!) ?? md);
    if (ocr.skipped > 0)
      pages.push(
        `_${ocr.skipped} more page${ocr.skipped === 1 ? '' : 's'} without a text layer ` +
          `${ocr.skipped === 1 ? 'was' : 'were'} not read: OCR reads at most ${ocrCap} pages of a document._`,
      );
    const named = usableTitle(info.Title);
    const title = named ?? laidOut.firstHeading;
    // Page marks on request: an HTML comment in Markdown (invisible when rendered, readable for a model) naming the
    // page's number in the PDF, a form feed in text.
    const marked = options.pageMarkers;
    let markdown = pages
      .map((md, i) => (marked && i < numbers.length ? `<!-- page ${numbers[i]} -->\n\n${md}` : md))
      .join('\n\n')
      .trim();
    // The PDF's own title heads the Markdown; a title taken from the first heading is in the text already.
    if (named && !/^# /.test(pages.join('\n\n').trim())) markdown = `# ${named}\n\n${markdown}`;
    const text = pages
      .map((md) => markdownToText(md))
      .join(marked ? '\n\n\f\n\n' : '\n\n')
      .trim();
    return {
      ok: true,
      page: {
        url: response.url.href,
        statusCode: response.status,
        contentType: response.headers['content-type'] ?? 'application/pdf',
        title,
        description: str(info.Subject),
        language: str(info.Language),
        markdown,
        text,
        redirects: response.redirects,
        bytes: response.bytes,
        // Also true when pages past PDF_MAX_PAGES, or scans past OCR_MAX_PAGES, were left unread (not when the caller
        // asked for fewer pages).
        bodyTruncated: response.bodyTruncated || read < wanted.length || ocr.skipped > 0,
        pageCount,
        ...(ocr.texts.size > 0 && { ocrPages: ocr.texts.size }),
        author: str(info.Author),
        publishedAt: normalisePdfDate(str(info.CreationDate)),
        siteName: null,
        canonicalUrl: null,
        image: null,
      },
    };
  } finally {
    await doc.destroy();
  }
}
