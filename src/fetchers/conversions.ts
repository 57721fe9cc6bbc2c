// Where the CPU work of a fetch runs: on a pool of worker threads (EXTRACT_WORKERS of them), so a heavy page never
// holds the event loop that serves every other request, cached ones included; in this thread when EXTRACT_WORKERS=0
// (the one-shot CLI). A page whose own work passes EXTRACT_TIMEOUT_MS of CPU is stopped with its thread (422, the
// page's fault); a page the machine could not give that much CPU within EXTRACT_WALL_TIMEOUT_MS is answered 503 (the
// server's).
import type { FetchFailure } from '../errors.js';
import { extractionTasks } from '../metrics/registry.js';
import type { HttpResponse } from '../net/safe-client.js';
import { createWorkerPool, type PoolStats, type TaskFailure } from '../workers/pool.js';
import { workerEntry } from '../workers/entry.js';
import type { Selection } from '../extract/selection.js';
import {
  conversionTasks,
  toWire,
  type ConversionTask,
  type CountedContent,
  type CountedSelection,
} from './conversion-tasks.js';
import type { DocumentOptions } from './documents/index.js';
import type { ReaderContent } from './reader-content.js';
import { failed, type DocumentRequest, type FetchOutcome } from './types.js';

export interface ConversionOptions {
  workers: number;
  queueMax: number;
  /** CPU time a page's extraction may use. */
  timeoutMs: number;
  /** Wall time from a page's arrival at the pool to its content, its wait for a thread included. */
  wallTimeoutMs: number;
  maxTasks: number;
  heapMb: number;
  nice: number;
  /** How binary documents are read: PDF pages, zip and row limits. */
  documents: DocumentOptions;
}

export type Converted<T> = { ok: true; content: T } | { ok: false; failure: FetchFailure };
export type Extraction = Converted<CountedContent>;

export interface Conversions {
  /** A 2xx response with a textual body → page (html.ts's conversion), token counts included. */
  html(response: HttpResponse): Promise<FetchOutcome>;
  /**
   * A binary document response → page (documents/index.ts), token counts included; `request`: the pages and marks
   * the caller asks for.
   */
  pdf(response: HttpResponse, request?: DocumentRequest): Promise<FetchOutcome>;
  /** A rendered page's HTML → its content (the browser fetcher); with the HTML compressed too when `keep`. */
  extract(html: string, url: string, keep?: boolean): Promise<Extraction>;
  /** A reader provider's Markdown → content (reader-content.ts); null content when it holds no readable text. */
  reader(input: ReaderContent): Promise<Converted<CountedContent | null>>;
  /** The part of a page's kept HTML that a caller's include and exclude name (extract/selection.ts). */
  select(htmlBrotli: Uint8Array, url: string, selection: Selection): Promise<Converted<CountedSelection>>;
  /** Starts `threads` threads and loads their module now, before a page needs them (a no-op in this thread). */
  warm(threads: number): void;
  /** The pool's threads and tasks; null when conversions run in this thread. */
  stats(): PoolStats | null;
  close(): Promise<void>;
}

/** Seconds a caller refused for capacity is asked to wait: about one page's extraction. */
const RETRY_AFTER_SECONDS = 2;

function poolFailure(reason: TaskFailure, url: string, options: ConversionOptions): FetchFailure {
  const host = new URL(url).host;
  const retryAfter = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  if (reason === 'timeout')
    return {
      code: 'extraction_timeout',
      detail: `${host}: extracting the page took longer than ${options.timeoutMs} ms of CPU, and was stopped`,
      retryable: false,
    };
  // The server's load, never the page's fault: a 422 would tell the caller that the page cannot be read.
  if (reason === 'starved')
    return {
      code: 'server_busy',
      detail:
        `${host}: the server was too busy to extract the page within ${options.wallTimeoutMs} ms ` +
        `(it had used less than its ${options.timeoutMs} ms of CPU)`,
      retryable: true,
      headers: retryAfter,
    };
  // A thread that died or could not start is the server's trouble, never the page's: retried, not a 500.
  if (reason === 'lost')
    return {
      code: 'server_busy',
      detail: `${host}: the extraction thread stopped before the page was done, for a reason other than the page's limits`,
      retryable: true,
      headers: retryAfter,
    };
  if (reason === 'limits')
    return {
      code: 'extraction_too_large',
      detail: `${host}: the page is too large or too deeply nested to extract (it reached the JavaScript engine's limits)`,
      retryable: false,
    };
  if (reason === 'memory')
    return {
      code: 'extraction_too_large',
      detail: `${host}: extracting the page needed more than ${options.heapMb} MB of memory, and was stopped`,
      retryable: false,
    };
  return {
    code: 'extraction_busy',
    detail: `every extraction thread is busy and ${options.queueMax} pages are waiting`,
    retryable: true,
    headers: retryAfter,
  };
}

/** Counts a conversion by its outcome, and hands it on. */
function counted<T extends { ok: true } | { ok: false; failure: FetchFailure }>(task: ConversionTask, outcome: T): T {
  extractionTasks.inc({ task, outcome: outcome.ok ? 'ok' : outcome.failure.code });
  return outcome;
}

export function createConversions(options: ConversionOptions): Conversions {
  const htmlInput = (response: HttpResponse) => ({ response: toWire(response), limits: options.documents.limits });
  const pdfInput = (response: HttpResponse, request?: DocumentRequest) => ({
    response: toWire(response),
    options: options.documents,
    request,
  });
  if (options.workers === 0) {
    return {
      html: async (response) => counted('html', conversionTasks.html(htmlInput(response))),
      pdf: async (response, request) => counted('pdf', await conversionTasks.pdf(pdfInput(response, request))),
      extract: async (html, url, keep) =>
        counted('extract', { ok: true, content: conversionTasks.extract({ html, url, keep }) }),
      reader: async (input) => counted('reader', { ok: true, content: conversionTasks.reader(input) }),
      select: async (htmlBrotli, url, selection) =>
        counted('select', { ok: true, content: conversionTasks.select({ htmlBrotli, url, selection }) }),
      warm: () => {},
      stats: () => null,
      close: async () => {},
    };
  }
  const pool = createWorkerPool({
    entry: workerEntry(import.meta.url, 'conversion-worker'),
    size: options.workers,
    queueMax: options.queueMax,
    cpuLimitMs: options.timeoutMs,
    wallLimitMs: options.wallTimeoutMs,
    maxTasks: options.maxTasks,
    heapMb: options.heapMb,
    nice: options.nice,
  });

  async function convert(task: ConversionTask, input: unknown, url: string): Promise<FetchOutcome> {
    const outcome = await pool.run<FetchOutcome>(task, input);
    return counted(task, outcome.ok ? outcome.value : failed(poolFailure(outcome.reason, url, options)));
  }

  async function content<T>(task: ConversionTask, input: unknown, url: string): Promise<Converted<T>> {
    const outcome = await pool.run<T>(task, input);
    return counted(
      task,
      outcome.ok
        ? { ok: true, content: outcome.value }
        : { ok: false, failure: poolFailure(outcome.reason, url, options) },
    );
  }

  return {
    html: (response) => convert('html', htmlInput(response), response.url.href),
    pdf: (response, request) => convert('pdf', pdfInput(response, request), response.url.href),
    extract: (html, url, keep) => content('extract', { html, url, keep }, url),
    reader: (input) => content('reader', input, input.url),
    select: (htmlBrotli, url, selection) => content('select', { htmlBrotli, url, selection }, url),
    warm: (threads) => pool.warm(threads),
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
