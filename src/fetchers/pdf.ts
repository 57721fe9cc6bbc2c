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
import { hasPdfMagic } from './documents/sniff.js';
import { statusFailure } from './html.js';
import { layoutPages, type TextRun } from './pdf-layout.js';
import { failed, type FetchOutcome } from './types.js';

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

export interface PdfOptions {
  maxPages: number;
}

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

/** pdf.js's text items → runs; marked-content entries (which have no `str`) are skipped. */
function toRuns(items: readonly object[]): TextRun[] {
  const runs: TextRun[] = [];
  for (const item of items) {
    if (!('str' in item)) continue;
    const {
      str: text,
      transform,
      width,
      hasEOL,
    } = item as { str: string; transform: number[]; width: number; hasEOL: boolean };
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = transform;
    runs.push({ str: text, x, y, width, size: Math.hypot(c, d) || Math.hypot(a, b), eol: hasEOL });
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
    const read = Math.min(pageCount, options.maxPages);
    const runsPerPage: TextRun[][] = [];
    for (let n = 1; n <= read; n++) {
      const page = await doc.getPage(n);
      runsPerPage.push(toRuns((await page.getTextContent()).items));
      page.cleanup();
      // pdf.js parses on this thread: give other requests a turn between pages.
      await yieldToEventLoop();
    }
    const chars = runsPerPage.reduce((sum, runs) => sum + runs.reduce((s, r) => s + letters(r.str), 0), 0);
    if (chars < NO_TEXT_CHARS_PER_PAGE * read) {
      const detail =
        `${host}: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'} but only ${chars} ` +
        `characters of text: it is scanned images without a text layer, and OCR is not offered`;
      return failed({ code: 'no_text_layer', detail, retryable: false });
    }
    const info: PdfInfo = await doc.getMetadata().then(
      (meta) => meta.info,
      () => ({}),
    );
    const laidOut = layoutPages(runsPerPage);
    const title = usableTitle(info.Title) ?? laidOut.firstHeading;
    // Page breaks: an HTML comment in Markdown (invisible when rendered, readable for a model), a form feed in text.
    let markdown = laidOut.pages
      .map((md, i) => (i === 0 ? md : `<!-- page ${i + 1} -->\n\n${md}`))
      .join('\n\n')
      .trim();
    if (title && !/^# /.test(markdown)) markdown = `# ${title}\n\n${markdown}`;
    const text = laidOut.pages
      .map((md) => markdownToText(md))
      .join('\n\n\f\n\n')
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
        // Also true when pages past PDF_MAX_PAGES were left unread.
        bodyTruncated: response.bodyTruncated || read < pageCount,
        pageCount,
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
