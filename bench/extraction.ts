// Extraction benchmark: our pipeline and plain Readability on the 181 labelled pages of shared/bench/extraction,
// scored on `text` with the benchmark's own metric, plus the Markdown-tokens-per-HTML-byte ratio behind estimates.
// Run: npx tsx bench/extraction.ts
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { extractHtml } from '../src/extract/index.js';
import {
  loadBenchmarkPages,
  scorePredictions,
  type BenchmarkPage as Page,
  type Predictions,
} from './benchmark-pages.js';
import { extractWithReadability } from './readability-baseline.js';

export interface SystemScore {
  f1: number;
  precision: number;
  recall: number;
  pagesPerSecond: number;
  /** Pages per second of this process's CPU time (GC threads included): steadier than wall time on a busy machine. */
  pagesPerCpuSecond: number;
}

/** extractHtml's figures at the top level; plain Readability's, measured in the same run, under `baseline`. */
export interface ExtractionBenchResult extends SystemScore {
  pages: number;
  baseline: SystemScore;
  /** Sum of o200k tokens of our Markdown / sum of raw HTML bytes: the Content-Length → tokens factor. */
  tokensPerByte: number;
  /** The same ratio taken per page, then averaged. */
  meanTokensPerByte: number;
}

/** Pages run once untimed first, so JIT compilation and loading the native converter are not counted. */
const WARM_UP_PAGES = 20;

interface SystemRun {
  predictions: Predictions;
  pagesPerSecond: number;
  pagesPerCpuSecond: number;
}

/**
 * Runs the systems page by page, in turn, timing each call: on a shared machine whose load changes during the run,
 * both then see the same conditions and their ratio stays meaningful.
 */
function runInterleaved(pages: Page[], systems: ((page: Page) => string)[]): SystemRun[] {
  for (const extract of systems) for (const page of pages.slice(0, WARM_UP_PAGES)) extract(page);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the assertion types the empty map
  const runs = systems.map(() => ({ predictions: {} as Predictions, ms: 0, cpuMicros: 0 }));
  for (const page of pages) {
    systems.forEach((extract, i) => {
      const run = runs[i]!;
      const cpu = process.cpuUsage();
      const started = performance.now();
      run.predictions[page.id] = { articleBody: extract(page) };
      run.ms += performance.now() - started;
      const used = process.cpuUsage(cpu);
      run.cpuMicros += used.user + used.system;
    });
  }
  return runs.map((run) => ({
    predictions: run.predictions,
    pagesPerSecond: pages.length / (run.ms / 1000),
    pagesPerCpuSecond: pages.length / (run.cpuMicros / 1e6),
  }));
}

export async function runExtractionBench(): Promise<ExtractionBenchResult> {
  const { pages, truth } = loadBenchmarkPages();
  const score = async (run: SystemRun): Promise<SystemScore> => {
    const { f1, precision, recall } = await scorePredictions(truth, run.predictions);
    return { f1, precision, recall, pagesPerSecond: run.pagesPerSecond, pagesPerCpuSecond: run.pagesPerCpuSecond };
  };

  const markdown = new Map<string, string>();
  const extractWithPipeline = (page: Page) => {
    const content = extractHtml(page.html, page.url);
    markdown.set(page.id, content.markdown);
    return content.text;
  };
  const [pipeline, baseline] = runInterleaved(pages, [
    extractWithPipeline,
    (page) => extractWithReadability(page.html),
  ]) as [SystemRun, SystemRun];

  let tokens = 0;
  let bytes = 0;
  let ratioSum = 0;
  for (const page of pages) {
    const count = countTokens(markdown.get(page.id) ?? '');
    tokens += count;
    bytes += page.bytes;
    ratioSum += count / page.bytes;
  }
  return {
    pages: pages.length,
    ...(await score(pipeline)),
    baseline: await score(baseline),
    tokensPerByte: tokens / bytes,
    meanTokensPerByte: ratioSum / pages.length,
  };
}

function formatScore(name: string, s: SystemScore): string {
  const f = (x: number) => x.toFixed(4);
  const speed = `${s.pagesPerSecond.toFixed(1)} pages/s (${s.pagesPerCpuSecond.toFixed(1)} per CPU-second)`;
  return `${name.padEnd(23)} F1 ${f(s.f1)}  P ${f(s.precision)}  R ${f(s.recall)}  ${speed}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await runExtractionBench();
  console.log(`${result.pages} pages`);
  console.log(formatScore('extractHtml (text)', result));
  console.log(formatScore('Readability textContent', result.baseline));
  console.log(
    `o200k tokens of Markdown per HTML byte: ${result.tokensPerByte.toFixed(4)} (sum/sum), ` +
      `${result.meanTokensPerByte.toFixed(4)} (mean per page)`,
  );
}
