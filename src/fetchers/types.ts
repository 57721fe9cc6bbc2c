// The one contract every fetcher (html, reader, browser, pdf) implements, and what the router records about them.
import type { FetchFailure } from '../errors.js';
import type { PageDetails } from '../extract/index.js';
import type { HttpResponse } from '../net/safe-client.js';
import { ROUTE_MILLICREDITS } from '../pricing.js';
import type { DocumentType } from './documents/types.js';

export const FETCHER_NAMES = ['html', 'reader', 'browser', 'pdf'] as const;
export type FetcherName = (typeof FETCHER_NAMES)[number];
// Every fetcher has a price, and every price a fetcher: until both hold, this does not compile.
const _everyFetcherPriced: Record<FetcherName, number> = ROUTE_MILLICREDITS;

/** What a caller may ask for in the request's `fetcher` field. */
export type FetcherChoice = 'auto' | FetcherName;

/**
 * One fetcher the router tried: `ok`, why it moved on (`app_shell`, `challenge`, `unavailable`…) or the failure code.
 */
export interface Attempt {
  fetcher: FetcherName;
  outcome: string;
  ms: number;
  detail?: string;
}

/**
 * What a fetcher hands back: content already converted, plus what it learned on the way. The page details (author,
 * publishedAt, siteName, canonicalUrl, image) are absent where a fetcher cannot know them, and in pages cached
 * before they were read.
 */
export interface FetchedPage extends Partial<PageDetails> {
  url: string; // final URL, after redirects
  statusCode: number;
  contentType: string;
  title: string | null;
  description: string | null;
  language: string | null;
  markdown: string;
  text: string;
  redirects: number;
  bytes: number;
  bodyTruncated: boolean;
  /** Publisher served Markdown that was used as is. */
  sourceMarkdown?: boolean;
  /** What the bytes were (documents/sniff.ts); absent in pages cached before it was recorded. */
  documentType?: DocumentType;
  /** PDFs: pages in the document (only the first PDF_MAX_PAGES are read); slides of a deck, sheets of a workbook. */
  pageCount?: number;
  /** Pages read by OCR (an image, PDF pages without a text layer): priced per page (pricing.ts). */
  ocrPages?: number;
  /** Set by the router when more than one fetcher was tried. */
  attempts?: Attempt[];
  /** Token counts of `markdown` and `text`, where the content was made (on an extraction thread). */
  tokens?: TokenCounts;
  /**
   * The HTML the content was extracted from (html and browser fetchers), compressed (kept-html.ts): kept apart, for
   * `include` and `exclude`.
   */
  htmlBrotli?: Uint8Array;
  /** Screenshots the request asked for (browser); never cached. */
  shots?: Shot[];
}

export interface TokenCounts {
  markdown: number;
  text: number;
}

export type FetchOutcome = { ok: true; page: FetchedPage } | { ok: false; failure: FetchFailure };

/** One step of `actions` (contract/interaction.ts), run in the browser in order. */
export type PageAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string }
  | { type: 'type'; selector: string; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction?: 'down' | 'up'; amount?: number; to_end?: boolean; times?: number }
  | { type: 'screenshot'; full_page?: boolean; format?: 'png' | 'jpeg' };

export interface ScreenshotRequest {
  fullPage: boolean;
  format: 'png' | 'jpeg';
}

/**
 * What a caller asks of the page beyond loading it. `headers` (lower-case names, cookies folded into `cookie`) are the
 * caller's credentials: sent to the requested origin only, never to the reader, never kept.
 */
export interface PageOptions {
  waitFor?: string | number;
  timeoutMs?: number;
  actions?: PageAction[];
  headers?: Record<string, string>;
  mobile?: boolean;
  locale?: string;
  screenshot?: ScreenshotRequest;
}

/** Pages `first` to `last` of a document, counted from 1, both included. */
export interface PageRange {
  first: number;
  last: number;
}

/** What a caller asks of a document (PDFs; other content ignores it): some of its pages, marks where pages begin. */
export interface DocumentRequest {
  pages?: readonly PageRange[];
  pageMarkers?: boolean;
}

/** A picture the browser took: of a `screenshot` action (`step`, its index) or of the page as read (`step` null). */
export interface Shot {
  step: number | null;
  format: 'png' | 'jpeg';
  bytes: Buffer;
}

export interface FetchOptions {
  signal?: AbortSignal;
  page?: PageOptions;
  document?: DocumentRequest;
}

export interface Fetcher {
  readonly name: FetcherName;
  /** Null when the fetcher can run now; otherwise why not (not configured, no browser installed, queue full…). */
  unavailable(): string | null;
  fetch(url: URL, options?: FetchOptions): Promise<FetchOutcome>;
}

/** Fetchers whose input is one plain GET (html, pdf): the router does that GET once and hands them the response. */
export interface ResponseConverter extends Fetcher {
  /** `document`: what the caller asks of a document; converters of other content ignore it. */
  convert(response: HttpResponse, document?: DocumentRequest): Promise<FetchOutcome>;
}

export function failed(failure: FetchFailure): FetchOutcome {
  return { ok: false, failure };
}
