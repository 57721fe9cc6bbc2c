// `npm run bench:estimate-sampling`: can 64 KB of an uncompressed page predict its tokens better when read as n
// windows spread over the page (separate single ranges) instead of its first 64 KB? For each WCXB dev page over 64 KB,
// the windows' own extraction (t), visible text (v) and script/style share (s) with the length (L) are fitted to the
// true tokens, ln(tokens + 1) = a + b·ln(t + 1) + c·ln(L) + d·s + e·ln(v + 1), by least squares on six sevenths of
// the pages and scored on the seventh `npm run bench:estimate` reads (every 7th from the 1st). Extraction in-process.
import { loadavg } from 'node:os';
import { extractHtml } from '../src/extract/index.js';
import { CODE, SAMPLE_BYTES } from '../src/services/estimate.js';
import { countTokens } from '../src/tokens/count.js';
import { loadWcxbPage, loadWcxbTruth, wcxbIds } from './wcxb-pages.js';

const WINDOWS = [1, 2, 4, 8, 16];

/** n windows of SAMPLE_BYTES / n: the first at the start (where the title is), the rest spread to the end. */
function windowsOf(raw: Buffer, n: number): string {
  const size = Math.floor(SAMPLE_BYTES / n);
  const parts = Array.from({ length: n }, (_, k) => {
    const start = k === 0 ? 0 : Math.floor(((raw.length - size) * k) / (n - 1));
    return raw.subarray(start, start + size);
  });
  return Buffer.concat(parts).toString('utf8');
}

function features(sample: string, url: string, length: number): number[] {
  const withoutCode = sample.replace(CODE, '');
  const visible = withoutCode.replace(/<[^>]*>/g, ' ');
  const extracted = countTokens(extractHtml(sample, url).markdown);
  const codeShare = (sample.length - withoutCode.length) / sample.length;
  return [1, Math.log(extracted + 1), Math.log(length), codeShare, Math.log(countTokens(visible) + 1)];
}

/** Least squares by the normal equations (five unknowns), solved by Gaussian elimination with partial pivoting. */
function leastSquares(xs: number[][], ys: number[]): number[] {
  const p = xs[0]!.length;
  const a = Array.from({ length: p }, (_, i) => [
    ...Array.from({ length: p }, (_, j) => xs.reduce((sum, x) => sum + x[i]! * x[j]!, 0)),
    xs.reduce((sum, x, r) => sum + x[i]! * ys[r]!, 0),
  ]);
  for (let i = 0; i < p; i++) {
    const pivot = a.slice(i).reduce((best, row, k) => (Math.abs(row[i]!) > Math.abs(a[best]![i]!) ? i + k : best), i);
    [a[i], a[pivot]] = [a[pivot]!, a[i]!];
    for (let k = i + 1; k < p; k++) {
      const f = a[k]![i]! / a[i]![i]!;
      for (let j = i; j <= p; j++) a[k]![j]! -= f * a[i]![j]!;
    }
  }
  const w = new Array<number>(p).fill(0);
  for (let i = p - 1; i >= 0; i--)
    w[i] = (a[i]![p]! - a[i]!.slice(i + 1, p).reduce((sum, v, k) => sum + v * w[i + 1 + k]!, 0)) / a[i]![i]!;
  return w;
}

const truth = loadWcxbTruth();
interface Row {
  scored: boolean;
  actual: number;
  x: number[][];
}
const rows: Row[] = [];
let whole = 0;
wcxbIds(truth).forEach((id, i) => {
  const page = loadWcxbPage(id, truth);
  if (page.raw.length <= SAMPLE_BYTES) {
    if (i % 7 === 0) whole++; // read whole: exact, as in bench:estimate
    return;
  }
  const actual = countTokens(extractHtml(page.html, page.url).markdown);
  if (actual === 0) return;
  const x = WINDOWS.map((n) => features(windowsOf(page.raw, n), page.url, page.raw.length));
  rows.push({ scored: i % 7 === 0, actual, x });
});

const scored = rows.filter((row) => row.scored);
const share = (count: number, of: number) => `${((100 * count) / of).toFixed(0)} %`;
console.log(`load average ${loadavg()[0]!.toFixed(2)}; ${scored.length} scored pages over 64 KB, ${whole} read whole`);
console.log('\n| windows | pages over 64 KB: ±30 % / 2× | all scored pages: ±30 % / 2× |\n|---:|---|---|');
WINDOWS.forEach((n, k) => {
  const train = rows.filter((row) => !row.scored);
  const w = leastSquares(
    train.map((row) => row.x[k]!),
    train.map((row) => Math.log(row.actual + 1)),
  );
  const ratios = scored.map((row) => (Math.exp(row.x[k]!.reduce((s, v, j) => s + v * w[j]!, 0)) - 1) / row.actual);
  const in30 = ratios.filter((r) => r >= 0.7 && r <= 1.3).length;
  const in2 = ratios.filter((r) => r >= 0.5 && r <= 2).length;
  const all = scored.length + whole;
  console.log(
    `| ${n} × ${SAMPLE_BYTES / n / 1024} KB | ${share(in30, scored.length)} / ${share(in2, scored.length)} | ` +
      `${share(in30 + whole, all)} / ${share(in2 + whole, all)} |`,
  );
});
