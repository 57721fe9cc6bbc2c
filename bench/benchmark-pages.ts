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
  /** The HTML as stored (UTF-8), to serve as is. */
  raw: Buffer;
  bytes: number;
}

export type Truth = Record<string, { articleBody: string; url: string }>;
export type Predictions = Record<string, { articleBody: string }>;

export interface PageScore {
  id: string;
  precision: number;
  recall: number;
  f1: number;
  trueTokens: number;
  predTokens: number;
}

export interface Score {
  f1: number;
  precision: number;
  recall: number;
  /** Bootstrap standard deviations (0 without bootstrap). */
  f1_std: number;
  precision_std: number;
  recall_std: number;
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
      return { id, url: truth[id]!.url, html: raw.toString('utf8'), raw, bytes: raw.length };
    });
  return { pages, truth };
}

/**
 * The page whose labelled article text is the median length: what the serving rows load, so that their answers are
 * a page's real size (5.1 KB of JSON) rather than a small fixture's.
 */
export function medianBenchmarkPage(): Buffer {
  const { pages, truth } = loadBenchmarkPages();
  const byLength = [...pages].sort((a, b) => truth[a.id]!.articleBody.length - truth[b.id]!.articleBody.length);
  return byLength[Math.floor(byLength.length / 2)]!.raw;
}

/** The benchmark's own metric (score.mjs): word 4-gram shingles, F1 of mean precision and mean recall. */
export async function scorePredictions(
  truth: Truth,
  predictions: Predictions,
  nBootstrap = 0,
): Promise<Score & { perPage: PageScore[] }> {
  const { evaluate } = await import(new URL('score.mjs', BENCH_DIR).href);
  const { metrics, perPage } = evaluate(Object.keys(truth).sort(), truth, predictions, { nBootstrap });
  const std = (name: string) => (metrics[name] as number | undefined) ?? 0;
  return {
    f1: metrics.f1,
    precision: metrics.precision,
    recall: metrics.recall,
    f1_std: std('f1_std'),
    precision_std: std('precision_std'),
    recall_std: std('recall_std'),
    perPage,
  };
}
