// `npm run bench:estimate`: GET /estimate against the true `total_tokens` of POST /fetch on the WCXB dev pages (every
// 7th, served from 127.0.0.1 with Content-Length and byte ranges), beside the old estimate (Content-Length × the HTML
// tokens-per-byte ratio, what the HEAD fallback still does), and the bytes each estimate read.
import { loadavg } from 'node:os';
import { SAMPLE_BYTES, TOKENS_PER_BYTE } from '../src/services/estimate.js';
import { loadWcxbPages, startWcxbBench } from './wcxb-site.js';

const pages = loadWcxbPages();
const bench = await startWcxbBench(pages);
const rows: { estimate: number; length: number; actual: number; method: string; bytes: number }[] = [];
try {
  for (const page of pages) {
    const url = bench.pageUrl(page);
    // The estimate first, while nothing is cached; then the fetch that gives the true count.
    const before = bench.bytesSent(page);
    const estimate = await bench.get(`/estimate?url=${encodeURIComponent(url)}`);
    const bytes = bench.bytesSent(page) - before;
    const fetched = await bench.post('/fetch', { url });
    if (estimate.status !== 200 || fetched.status !== 200 || fetched.metadata.total_tokens === 0) continue;
    rows.push({
      estimate: estimate.estimated_tokens,
      length: Math.max(1, Math.round(page.raw.length * TOKENS_PER_BYTE.html)),
      actual: fetched.metadata.total_tokens,
      method: estimate.method,
      bytes,
    });
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
describe(
  'GET /estimate (ranged GET of 64 KB)',
  rows.map((r) => r.estimate / r.actual),
);
for (const method of ['whole', 'sample']) {
  const some = rows.filter((r) => r.method === method);
  if (some.length > 0)
    describe(
      `… method ${method}`,
      some.map((r) => r.estimate / r.actual),
    );
}
describe(
  'Content-Length × 0.0125 (before; the HEAD fallback)',
  rows.map((r) => r.length / r.actual),
);
const maxBytes = Math.max(...rows.map((r) => r.bytes));
console.log(`\nMost body bytes read by one estimate: ${maxBytes} (limit ${SAMPLE_BYTES}).`);
