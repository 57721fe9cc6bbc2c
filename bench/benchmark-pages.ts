// The 181 labelled pages of shared/bench/extraction (Scrapinghub's article benchmark) and its own scorer, for the
// benchmarks and for the regression test that holds extraction quality to its target.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const BENCH_DIR = new URL('../../shared/bench/extraction/', import.meta.url);

export interface BenchmarkPage {
  id: string;
  url: string;
  html: string;
  /** Raw HTML bytes, as served. */
  bytes: number;
}

export type Truth = Record<string, { articleBody: string; url: string }>;
export type Predictions = Record<string, { articleBody: string }>;

export interface Score {
  f1: number;
  precision: number;
  recall: number;
  /** Per page: {precision, recall, f1} by page id. */
  perPage: Record<string, { precision: number; recall: number; f1: number }>;
}

/** Where the benchmark lives (beside this checkout), or null when it is not there. */
export function benchmarkDir(): string | null {
  const dir = fileURLToPath(BENCH_DIR);
  return existsSync(`${dir}scrapinghub/ground-truth.json`) ? dir : null;
}

export function loadBenchmarkPages(): { pages: BenchmarkPage[]; truth: Truth } {
  const truth = JSON.parse(readFileSync(new URL('scrapinghub/ground-truth.json', BENCH_DIR), 'utf8')) as Truth;
  const pages = Object.keys(truth)
    .sort()
    .map((id) => {
      const raw = gunzipSync(readFileSync(new URL(`scrapinghub/html/${id}.html.gz`, BENCH_DIR)));
      return { id, url: truth[id]!.url, html: raw.toString('utf8'), bytes: raw.length };
    });
  return { pages, truth };
}

/** The benchmark's own metric (score.mjs): word 4-gram shingles, F1 of mean precision and mean recall. */
export async function scorePredictions(truth: Truth, predictions: Predictions, nBootstrap = 0): Promise<Score & { metrics: Record<string, number> }> {
  const { evaluate } = await import(new URL('score.mjs', BENCH_DIR).href);
  const ids = Object.keys(truth).sort();
  const { metrics, perPage } = evaluate(ids, truth, predictions, { nBootstrap });
  return { f1: metrics.f1, precision: metrics.precision, recall: metrics.recall, perPage, metrics };
}
