// `npm run bench:estimate`: GET /estimate against the true `total_tokens` of POST /fetch on the WCXB dev pages (every
// 7th, served from 127.0.0.1 by a site that gzips when asked and by a plain one with byte ranges), beside the old
// estimate (Content-Length × the HTML tokens-per-byte ratio, what the HEAD fallback still does), and the bytes sent.
import { loadavg } from 'node:os';
import { SAMPLE_BYTES, TOKENS_PER_BYTE } from '../src/services/estimate.js';
import { loadWcxbPages, startWcxbBench, type Serving } from './wcxb-site.js';

const pages = loadWcxbPages();
const bench = await startWcxbBench(pages);
interface Row {
  serving: Serving;
  estimate: number;
  actual: number;
  method: string;
  bytes: number;
}
const rows: Row[] = [];
const before: { length: number; actual: number }[] = [];
try {
  for (const page of pages) {
    // The estimates first, while nothing is cached; then the fetch that gives the true count.
    const estimates = [];
    for (const serving of ['gzip', 'plain'] as const) {
      const url = bench.pageUrl(page, serving);
      const sent = bench.bytesSent(page, serving);
      const estimate = await bench.get(`/estimate?url=${encodeURIComponent(url)}`);
      estimates.push({ serving, estimate, bytes: bench.bytesSent(page, serving) - sent });
    }
    const fetched = await bench.post('/fetch', { url: bench.pageUrl(page) });
    if (fetched.status !== 200 || fetched.metadata.total_tokens === 0) continue;
    const actual = fetched.metadata.total_tokens;
    before.push({ length: Math.max(1, Math.round(page.raw.length * TOKENS_PER_BYTE.html)), actual });
    for (const { serving, estimate, bytes } of estimates) {
      if (estimate.status !== 200) continue;
      rows.push({ serving, estimate: estimate.estimated_tokens, actual, method: estimate.method, bytes });
    }
  }
} finally {
  await bench.close();
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const describe = (name: string, ratios: number[]) => {
  const sorted = [...ratios].sort((a, b) => a - b);
  const share = (ok: (r: number) => boolean) => `${((100 * ratios.filter(ok).length) / ratios.length).toFixed(0)} %`;
  const q = [0.1, 0.25, 0.5, 0.75, 0.9].map((x) => quantile(sorted, x).toFixed(2)).join(' / ');
  console.log(
    `| ${name} | ${ratios.length} | ${share((r) => r >= 0.7 && r <= 1.3)} | ${share((r) => r >= 0.5 && r <= 2)} | ${q} |`,
  );
};
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${rows.length} pages\n`,
);
console.log('| estimate | pages | within ±30 % | within 2× | estimate ÷ actual: p10 / p25 / median / p75 / p90 |');
console.log('|---|---:|---:|---:|---|');
const SERVINGS = { gzip: 'gzip when asked (as real servers)', plain: 'plain, with byte ranges' } as const;
for (const serving of ['gzip', 'plain'] as const) {
  const served = rows.filter((r) => r.serving === serving);
  describe(
    `GET /estimate, site ${SERVINGS[serving]}`,
    served.map((r) => r.estimate / r.actual),
  );
  for (const method of [...new Set(served.map((r) => r.method))].sort())
    describe(
      `… method ${method}`,
      served.filter((r) => r.method === method).map((r) => r.estimate / r.actual),
    );
}
describe(
  'Content-Length × 0.0125 (before; the HEAD fallback)',
  before.map((r) => r.length / r.actual),
);
// The plain site sends exactly the range asked for; the gzip site sends the whole page, of which the client reads at
// most SAMPLE_BYTES before it hangs up (test/net/safe-client-body.test.ts), so its count is what the site wrote.
const most = (serving: Serving) => Math.max(...rows.filter((r) => r.serving === serving).map((r) => r.bytes));
console.log(
  `\nMost body bytes sent for one estimate: plain site ${most('plain')} (limit ${SAMPLE_BYTES}); gzip site ` +
    `${most('gzip')} written, of which at most ${SAMPLE_BYTES} are read.`,
);
