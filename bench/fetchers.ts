// Fetcher benchmarks: the browser pool against a fresh browser per page (8 concurrent app-shell pages, same run),
// PDF pages/s on a 50-page PDF (our pipeline and pdf.js's bare text extraction), and the app-shell detector's
// figures on the extraction corpus. Run: npx tsx bench/fetchers.ts (also part of `npm run bench`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { appShellReason, readShellSignals } from '../src/fetchers/app-shell.js';
import { createBrowserPool } from '../src/fetchers/browser-pool.js';
import { createBrowserFetcher } from '../src/fetchers/browser.js';
import { detectChallenge } from '../src/fetchers/challenge.js';
import { convertPdf } from '../src/fetchers/pdf.js';
import type { Fetcher } from '../src/fetchers/types.js';
import { createAddressPolicy } from '../src/net/guard.js';
import { startFetcherSite } from '../test/helpers/fixture-fetchers.js';
import { makeBookPdf } from '../test/helpers/pdf-fixtures.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CONCURRENT = 8;
const PAGES_PER_WORKER = Number(process.env.BENCH_BROWSER_PAGES ?? 4);
const PDF_PAGES = 50;
const CORPUS = new URL('../../shared/bench/extraction/scrapinghub/html/', import.meta.url);

export interface BrowserFigures {
  pagesPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  pages: number;
}

export interface FetchersBenchResult {
  browser: { pool: BrowserFigures; fresh: BrowserFigures; poolSize: number } | null;
  pdf: { pagesPerSecond: number; pdfjsTextOnlyPagesPerSecond: number; pages: number };
  corpus: {
    pages: number;
    minText: number;
    p5Text: number;
    medianRatio: number;
    p95Ratio: number;
    maxRatio: number;
    shells: number;
    challenges: number;
  } | null;
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

/** CONCURRENT workers, each loading PAGES_PER_WORKER pages one after another. */
async function loadConcurrently(load: () => Promise<void>): Promise<BrowserFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      for (let i = 0; i < PAGES_PER_WORKER; i++) {
        const t = performance.now();
        await load();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    pagesPerSecond: latencies.length / seconds,
    p50Ms: quantile(latencies, 0.5),
    p95Ms: quantile(latencies, 0.95),
    pages: latencies.length,
  };
}

async function benchBrowser(url: URL, poolSize: number): Promise<FetchersBenchResult['browser']> {
  if (!existsSync(CHROMIUM_PATH)) return null;
  const policy = createAddressPolicy({ allowPrivateNetworks: true });
  const make = (size: number) => {
    const pool = createBrowserPool({
      policy,
      size,
      queueMax: 64,
      chromiumPath: CHROMIUM_PATH,
      userAgent: 'FetchdownBot/1.0 (bench)',
      acquireTimeoutMs: 120_000,
    });
    return {
      pool,
      fetcher: createBrowserFetcher({ pool, policy, waitMs: 5000, timeoutMs: 60_000, maxBytes: 10 << 20 }),
    };
  };
  const expectOk = async (fetcher: Fetcher) => {
    const outcome = await fetcher.fetch(url);
    if (!outcome.ok) throw new Error(`browser bench page failed: ${outcome.failure.detail}`);
  };

  // The pool: one browser, `poolSize` contexts reused; launched before timing, as a running service has it.
  const shared = make(poolSize);
  await expectOk(shared.fetcher);
  const pool = await loadConcurrently(() => expectOk(shared.fetcher));
  await shared.pool.close();

  // Fresh: a browser launched, used for one page and closed, for every page.
  const fresh = await loadConcurrently(async () => {
    const once = make(1);
    try {
      await expectOk(once.fetcher);
    } finally {
      await once.pool.close();
    }
  });
  return { pool, fresh, poolSize };
}

async function benchPdf(): Promise<FetchersBenchResult['pdf']> {
  const body = await makeBookPdf(PDF_PAGES);
  const response = {
    url: new URL('http://bench.invalid/book.pdf'),
    status: 200,
    headers: { 'content-type': 'application/pdf' },
    body,
    bodyTruncated: false,
    redirects: 0,
    bytes: body.length,
    wireBytes: body.length,
  };
  const runs = 5;
  const time = async (fn: () => Promise<unknown>) => {
    await fn();
    const started = performance.now();
    for (let i = 0; i < runs; i++) await fn();
    return (PDF_PAGES * runs) / ((performance.now() - started) / 1000);
  };
  const pagesPerSecond = await time(async () => {
    const outcome = await convertPdf(response, { maxPages: 300 });
    if (!outcome.ok) throw new Error(outcome.failure.detail);
  });
  // The library's floor: pdf.js text items of every page, no layout.
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdfjsTextOnlyPagesPerSecond = await time(async () => {
    const doc = await getDocument({ data: new Uint8Array(body), isEvalSupported: false, verbosity: 0 }).promise;
    for (let n = 1; n <= doc.numPages; n++) await (await doc.getPage(n)).getTextContent();
    await doc.destroy();
  });
  return { pagesPerSecond, pdfjsTextOnlyPagesPerSecond, pages: PDF_PAGES };
}

/** The figures the app-shell and challenge thresholds were chosen from (see their comments). */
function benchCorpus(): FetchersBenchResult['corpus'] {
  if (!existsSync(CORPUS)) return null;
  const texts: number[] = [];
  const ratios: number[] = [];
  let shells = 0;
  let challenges = 0;
  for (const file of readdirSync(CORPUS)) {
    const html = gunzipSync(readFileSync(new URL(file, CORPUS))).toString('utf8');
    const signals = readShellSignals(html);
    texts.push(signals.textChars);
    ratios.push(signals.inlineScriptBytes / Math.max(1, signals.textChars));
    if (appShellReason(signals)) shells++;
    if (detectChallenge({ status: 200, headers: {}, html })) challenges++;
  }
  return {
    pages: texts.length,
    minText: Math.min(...texts),
    p5Text: quantile(texts, 0.05),
    medianRatio: quantile(ratios, 0.5),
    p95Ratio: quantile(ratios, 0.95),
    maxRatio: Math.max(...ratios),
    shells,
    challenges,
  };
}

export async function runFetchersBench(options: { poolSize?: number } = {}): Promise<FetchersBenchResult> {
  const site = await startFetcherSite();
  try {
    const browser = await benchBrowser(new URL(site.url('/app-shell')), options.poolSize ?? 4);
    return { browser, pdf: await benchPdf(), corpus: benchCorpus() };
  } finally {
    await site.close();
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** Markdown table rows: measure | Fetchdown | baseline (same run) | ratio | target. */
export function fetchersRows(result: FetchersBenchResult): string[][] {
  const rows: string[][] = [];
  const { browser, pdf } = result;
  if (browser) {
    const figures = (f: BrowserFigures) =>
      `${fmt(f.pagesPerSecond, 2)} pages/s, p50 ${fmt(f.p50Ms, 0)} ms, p95 ${fmt(f.p95Ms, 0)} ms`;
    rows.push([
      `browser, ${CONCURRENT} concurrent app-shell pages (${browser.pool.pages} in all)`,
      `pool of ${browser.poolSize}: ${figures(browser.pool)}`,
      `fresh browser per page: ${figures(browser.fresh)}`,
      `${fmt(browser.pool.pagesPerSecond / browser.fresh.pagesPerSecond, 2)}×`,
      '≥ 2×',
    ]);
  } else rows.push(['browser', `skipped: no Chromium at ${CHROMIUM_PATH}`, '', '', '']);
  rows.push([
    `PDF, ${pdf.pages}-page document`,
    `${fmt(pdf.pagesPerSecond, 0)} pages/s (pdf.js + layout → Markdown)`,
    `pdf.js text items alone: ${fmt(pdf.pdfjsTextOnlyPagesPerSecond, 0)} pages/s`,
    `${fmt(pdf.pagesPerSecond / pdf.pdfjsTextOnlyPagesPerSecond, 2)}×`,
    '≥ 100 pages/s',
  ]);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runFetchersBench();
  console.log('| measure | Fetchdown | baseline (same run) | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const row of fetchersRows(result)) console.log(`| ${row.join(' | ')} |`);
  const c = result.corpus;
  if (c) {
    console.log(
      `\nApp-shell / challenge detectors on the ${c.pages} extraction-benchmark pages: visible ` +
        `text min ${c.minText}, 5th percentile ${c.p5Text}; ` +
        (`inline script bytes per text character median ${fmt(c.medianRatio)}, 95th percentile ` +
          `${fmt(c.p95Ratio)}, max ${fmt(c.maxRatio)}; `) +
        `taken for shells: ${c.shells}, for challenges: ${c.challenges}.`,
    );
  }
}
