// The WCXB development split (shared/bench/wcxb/dev: 1,497 pages of seven page types) and its scorer, for
// `npm run bench:quality` and for the regression test that holds the figures on a seeded sample.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const WCXB_DIR = new URL('../../shared/bench/wcxb/', import.meta.url);

export const PAGE_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export interface WcxbTruth {
  articleBody: string;
  url: string;
  page_type: PageType;
  title: string;
  with?: string[];
  without?: string[];
}

export interface WcxbPage {
  id: string;
  url: string;
  pageType: PageType;
  html: string;
  raw: Buffer;
}

export interface WcxbSummary {
  n: number;
  f1: number;
  precision: number;
  recall: number;
  with: number;
  without: number;
}

export interface WcxbPageScore extends WcxbSummary {
  id: string;
  page_type: PageType;
}

export interface WcxbScore {
  overall: WcxbSummary;
  byType: Partial<Record<PageType, WcxbSummary>>;
  perPage: WcxbPageScore[];
}

/** Published word-F1 on the dev split of rs-trafilatura, the best system the issue compares with. */
export const RS_TRAFILATURA: Record<PageType | 'overall', number> = {
  overall: 0.859,
  article: 0.932,
  documentation: 0.932,
  service: 0.844,
  forum: 0.808,
  collection: 0.716,
  listing: 0.707,
  product: 0.641,
};

export function wcxbDir(): string | null {
  const dir = fileURLToPath(WCXB_DIR);
  return existsSync(`${dir}dev/ground-truth.json`) ? dir : null;
}

export function loadWcxbTruth(): Record<string, WcxbTruth> {
  return JSON.parse(readFileSync(new URL('dev/ground-truth.json', WCXB_DIR), 'utf8')) as Record<string, WcxbTruth>;
}

/** A deterministic pseudo-random generator (mulberry32), so a seeded sample is the same pages on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every id sorted, or `size` of them drawn with `seed` (a Fisher-Yates shuffle, then sorted). */
export function wcxbIds(truth: Record<string, WcxbTruth>, sample?: { size: number; seed: number }): string[] {
  const ids = Object.keys(truth).sort();
  if (!sample || sample.size >= ids.length) return ids;
  const random = seeded(sample.seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids.slice(0, sample.size).sort();
}

export function loadWcxbPage(id: string, truth: Record<string, WcxbTruth>): WcxbPage {
  const raw = gunzipSync(readFileSync(new URL(`dev/html/${id}.html.gz`, WCXB_DIR)));
  const t = truth[id]!;
  return { id, url: t.url, pageType: t.page_type, html: raw.toString('utf8'), raw };
}

/** WCXB's own metric (score.mjs): bag-of-words F1 per page, averaged over pages, overall and per page type. */
export async function scoreWcxb(
  ids: string[],
  truth: Record<string, WcxbTruth>,
  predictions: Record<string, string>,
): Promise<WcxbScore> {
  const { evaluate } = (await import(new URL('score.mjs', WCXB_DIR).href)) as {
    evaluate: (ids: string[], truth: unknown, pred: unknown) => WcxbScore;
  };
  return evaluate(ids, truth, predictions);
}
