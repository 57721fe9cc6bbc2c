// `npm run bench:threads` (also part of `npm run bench`): what the extraction threads (issue 14) buy, each row a ratio
// measured interleaved in one run, with min/median/max over the rounds and the load average printed beside it.
//   head of line: cached POST /fetch p99 while one 10 MB page is being extracted, against the same probes without it;
//                 the threads as shipped (EXTRACT_WORKER_NICE=10), level with the event loop (=0), and inline;
//   both cores:   uncached POST /fetch of the 181 benchmark pages, 8 at once, with threads against EXTRACT_WORKERS=0;
//                 with BENCH_BEFORE=<checkout, built> also against that build (the commit before the threads, d136f56:
//                 the single-threaded figure the issue names), in the same interleaved rounds; it extracts inline
//                 unless BENCH_BEFORE_WORKERS says how many threads (to weigh a change to the threads themselves).
// Every build first serves BENCH_WARMUP_PASSES (10) passes of the 181 pages, so the rows compare warm processes.
// API processes from the builds (dist/main.js), one per setting; the site runs in this process.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Pool } from 'undici';
import { killAll, freePort } from '../test/topology/children.js';
import { buildIfStale } from '../test/helpers/build.js';
import { startApi, tempDir, type ApiProcess } from '../test/topology/stack.js';
import { loadBenchmarkPages, medianBenchmarkPage } from './benchmark-pages.js';
import { cpuMicros, spread } from './processes.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_PASSES = Number(process.env.BENCH_WARMUP_PASSES ?? 10);
const PROBES = 4; // probe connections running at once
const CONCURRENCY = 8;
const MB = 1024 * 1024;

/** A 10 MB article: 12,000 paragraphs of ordinary prose (the size the issue measured holding the loop 20–30 s). */
const LARGE_PAGE = Buffer.from(
  '<!doctype html><html><head><title>Large</title></head><body><article><h1>A large page</h1>' +
    Array.from(
      { length: 12_000 },
      (_, i) =>
        `<p>Paragraph ${i} says a little about the topic, then a little more, so that it reads like text. `.repeat(8) +
        '</p>\n',
    ).join('') +
    '</article></body></html>',
);

const { pages } = loadBenchmarkPages();
const pageById = new Map(pages.map((page) => [page.id, page.raw]));
/** The probes' cached page: the benchmark's median page, the size of a real answer. */
const PROBE_PAGE = medianBenchmarkPage();

const site = createServer((req, res) => {
  const path = req.url ?? '/';
  const body = path.startsWith('/large/')
    ? LARGE_PAGE
    : path.startsWith('/page/')
      ? pageById.get(path.split('/')[2] ?? '')
      : PROBE_PAGE;
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
});
site.listen(0, '127.0.0.1');
await new Promise((resolve) => site.once('listening', resolve));
const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

async function post(pool: Pool, body: object): Promise<number> {
  const res = await pool.request({
    method: 'POST',
    path: '/fetch',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  await res.body.text();
  return res.statusCode;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Cached probes, PROBES at once, until `until` resolves; their latencies in ms. */
async function probe(pool: Pool, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: PROBES }, async () => {
      while (!done) {
        const started = performance.now();
        const status = await post(pool, { url: `${siteOrigin}/probe` });
        if (status !== 200) throw new Error(`probe answered ${status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

/** One round of the head-of-line row on one API: p99 with a 10 MB page being fetched, then as long without. */
async function headOfLine(api: ApiProcess, round: number) {
  const pool = new Pool(api.base, { connections: PROBES + 1 });
  const started = performance.now();
  const large = post(pool, { url: `${siteOrigin}/large/${round}`, use_cache: false });
  const busy = await probe(pool, large);
  const largeStatus = await large;
  const ms = performance.now() - started;
  const quiet = await probe(pool, new Promise((resolve) => setTimeout(resolve, ms)));
  await pool.close();
  return {
    largeStatus,
    ms,
    busyP99: quantile(busy, 0.99),
    busyMax: busy.at(-1)!,
    quietP99: quantile(quiet, 0.99),
    probes: [busy.length, quiet.length],
  };
}

/** One pass of the 181 pages, CONCURRENCY at once, uncached: pages per second, and the API's CPU (µs) per page. */
async function bothCores(api: ApiProcess): Promise<{ rate: number; cpu: number }> {
  const pool = new Pool(api.base, { connections: CONCURRENCY });
  const queue = [...pages];
  const cpu = cpuMicros(api.child.process.pid);
  const started = performance.now();
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let page = queue.shift(); page; page = queue.shift())
        if ((await post(pool, { url: `${siteOrigin}/page/${page.id}`, use_cache: false })) !== 200) failed++;
    }),
  );
  await pool.close();
  if (failed) console.error(`${failed} of ${pages.length} pages failed`);
  return {
    rate: (pages.length * 1000) / (performance.now() - started),
    cpu: (cpuMicros(api.child.process.pid) - cpu) / pages.length,
  };
}

buildIfStale();
process.on('exit', () => void killAll());
const env = (workers: string, nice = '10') => ({
  LOG_LEVEL: 'warn',
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  RATE_LIMIT_ANONYMOUS: '0',
  ROBOTS_TXT: 'ignore',
  BROWSER_POOL_SIZE: '0',
  FETCH_TIMEOUT_MS: '120000',
  FETCH_MAX_BYTES: String(16 * MB),
  EXTRACT_TIMEOUT_MS: '300000', // the 10 MB page must be extracted, not stopped
  EXTRACT_WORKERS: workers,
  EXTRACT_WORKER_NICE: nice,
});
const dirs = ['pool', 'level', 'inline', 'before'].map((name) => tempDir(`threads-${name}`));
const threaded = await startApi(await freePort(), env('2'), dirs[0]!);
const level = await startApi(await freePort(), env('2', '0'), dirs[1]!);
const inline = await startApi(await freePort(), env('0'), dirs[2]!);
const apis = { threads: threaded, 'EXTRACT_WORKER_NICE=0': level, 'EXTRACT_WORKERS=0': inline };
const BEFORE = process.env.BENCH_BEFORE;
const BEFORE_WORKERS = process.env.BENCH_BEFORE_WORKERS ?? '0';
const before = BEFORE ? await startApi(await freePort(), env(BEFORE_WORKERS), dirs[3]!, resolve(BEFORE)) : undefined;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()} (a shared 2-core machine: other agents' work runs beside these figures)`);
// Warm-up: thread start, the probe page cached, and WARMUP_PASSES passes of the 181 pages on every build. A thread's
// V8 compiles the extraction code as it goes: its first ~1,000 pages cost 1.5-3x its steady state
// (docs/benchmarks-log.md, EXTRACT_WORKER_MAX_TASKS), and a long-running server is past that. Without it each of two
// threads sees half the pages one inline thread sees, and the rows would measure the JIT's warm-up rather than the
// cores: ten passes give each of two threads ~900 pages (with four, the first round's threads still ran at 0.7x of
// the later rounds).
for (const api of [...Object.values(apis), ...(before ? [before] : [])]) {
  const pool = new Pool(api.base, { connections: 1 });
  await post(pool, { url: `${siteOrigin}/probe` });
  await pool.close();
  for (let pass = 0; pass < WARMUP_PASSES; pass++) await bothCores(api);
}
console.log(`warm-up: ${WARMUP_PASSES} passes of the ${pages.length} pages on each build; load ${load()}`);

const hol: Record<string, { ratio: number[]; busy: number[]; quiet: number[]; ms: number[] }> = {};
const rates: Record<string, number[]> = {};
const cpus: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  // Each setting first in turn, so drift in the machine's load weighs on all alike.
  const names = Object.keys(apis) as (keyof typeof apis)[];
  for (const name of names.map((_, i) => names[(i + round) % names.length]!)) {
    const r = await headOfLine(apis[name], round);
    const row = (hol[name] ??= { ratio: [], busy: [], quiet: [], ms: [] });
    row.ratio.push(r.busyP99 / r.quietP99);
    row.busy.push(r.busyP99);
    row.quiet.push(r.quietP99);
    row.ms.push(r.ms);
    console.error(
      `round ${round + 1} ${name}: 10 MB page ${r.largeStatus} in ${Math.round(r.ms)} ms; p99 ${r.busyP99.toFixed(1)} ms` +
        ` (max ${r.busyMax.toFixed(0)}) against ${r.quietP99.toFixed(1)} ms; probes ${r.probes.join('/')}; load ${load()}`,
    );
  }
  // Each build first in turn, so drift weighs on all alike.
  const builds = Object.entries({ ...apis, ...(before && { before }) });
  for (const [name, api] of builds.map((_, i) => builds[(i + round) % builds.length]!)) {
    const { rate, cpu } = await bothCores(api);
    (rates[name] ??= []).push(rate);
    (cpus[name] ??= []).push(cpu);
  }
  console.error(
    `round ${round + 1} pages/s: ` +
      Object.entries(rates)
        .map(([name, rate]) => `${name} ${rate.at(-1)!.toFixed(1)}`)
        .join(', '),
  );
}
/** Round by round, the threads' pages per second and CPU per page over another build's (CPU is the steadier one). */
const against = (name: string) =>
  `${spread(rates.threads!.map((rate, i) => rate / rates[name]![i]!))}× pages/s, ` +
  `${spread(cpus.threads!.map((cpu, i) => cpu / cpus[name]![i]!))}× CPU/page`;

console.log(`\n${ROUNDS} rounds, interleaved; min / median / max\n`);
console.log('| measure | threads (EXTRACT_WORKERS=2) | EXTRACT_WORKERS=0 | ratio | target |\n|---|---|---|---|---|');
console.log(
  `| head of line: cached p99 with a 10 MB page in extraction ÷ without | ${spread(hol.threads!.ratio)}× ` +
    `(p99 ${spread(hol.threads!.busy, 0)} ms against ${spread(hol.threads!.quiet, 0)} ms) | ` +
    `${spread(hol['EXTRACT_WORKERS=0']!.ratio)}× (p99 ${spread(hol['EXTRACT_WORKERS=0']!.busy, 0)} ms against ` +
    `${spread(hol['EXTRACT_WORKERS=0']!.quiet, 0)} ms) | — | threads ≤ 2× |`,
);
const levelRow = hol['EXTRACT_WORKER_NICE=0']!;
const levelRates = rates['EXTRACT_WORKER_NICE=0']!;
console.log(
  `| threads level with the event loop (EXTRACT_WORKER_NICE=0; shipped: 10): head of line | ` +
    `${spread(levelRow.ratio)}× (p99 ${spread(levelRow.busy, 0)} ms against ${spread(levelRow.quiet, 0)} ms) | — ` +
    `| — | — |\n| … and both cores | ${spread(levelRates, 1)} pages/s | ${spread(rates['EXTRACT_WORKERS=0']!, 1)} ` +
    `pages/s | ${spread(levelRates.map((rate, i) => rate / rates['EXTRACT_WORKERS=0']![i]!))}× | — |`,
);
/** Pages per second and, beside them, the API process's CPU per page (all its threads). */
const rateAndCpu = (name: string) =>
  `${spread(rates[name]!, 1)} pages/s, ${spread(
    cpus[name]!.map((us) => us / 1000),
    1,
  )} ms CPU/page`;
console.log(
  `| both cores: uncached /fetch, 181 pages, ${CONCURRENCY} at once | ${rateAndCpu('threads')} | ` +
    `${rateAndCpu('EXTRACT_WORKERS=0')} | ${against('EXTRACT_WORKERS=0')} | ≥ 1.6× pages/s |`,
);
if (rates.before) {
  console.log(
    `| both cores against ${BEFORE} (EXTRACT_WORKERS=${BEFORE_WORKERS}) | ${rateAndCpu('threads')} | ` +
      `${rateAndCpu('before')} | ${against('before')} | ≥ 1.6× pages/s |`,
  );
}
console.log(`\nload average after: ${load()}`);
await killAll();
site.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
