// `npm run bench:crawl`: crawls in the production set-up (an API process, BullMQ on a Redis of the bench's own, a
// Postgres database of its own, `fetchdown worker` processes) of the crawl site (test/helpers/crawl-site.ts, served as
// localhost) whose pages answer after BENCH_CRAWL_DELAY_MS (200):
//   - 1, 2 and 4 worker processes, in interleaved rounds (1 2 4, then 4 2 1…): pages per second, CPU per page of the
//     workers and the API, the workers' peak RSS, and the site's counters (the most requests at once to the host
//     against CRAWL_HOST_CONCURRENCY, pages fetched twice, requests out of scope). The cache is emptied between
//     rounds (FLUSHDB), so every round fetches every page.
//   - CPU per page of a crawl against POST /fetch of the same pages (8 at once), both uncached.
//   - POST /map of sitemaps listing BENCH_MAP_URLS (50,000) and half as many: the API's CPU and peak RSS.
// BENCH_CRAWL_PAGES (2,000) pages a crawl, BENCH_ROUNDS (2) rounds, BENCH_CRAWL_WORKERS ("1,2,4") the worker counts
// compared, BENCH_CRAWL_CONCURRENCY (8) pages each worker reads at once: with few, the site's 200 ms bounds a worker
// rather than the cores, which shows how the queue shares work on a machine too small for CPU-bound workers.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildIfStale } from '../test/helpers/build.js';
import { startCrawlSite, type CrawlSite } from '../test/helpers/crawl-site.js';
import { REPO_ROOT } from '../test/helpers/mcp-client.js';
import { freePort, killAll, signal, startChild, type Child } from '../test/topology/children.js';
import { startApi, startRedis, tempDir, type ApiProcess } from '../test/topology/stack.js';
import { newAccount } from '../test/topology/topology.js';
import { loadAverage, spread, treeCpu } from './processes.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PAGES = Number(process.env.BENCH_CRAWL_PAGES ?? 2000);
const DELAY_MS = Number(process.env.BENCH_CRAWL_DELAY_MS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MAP_URLS = Number(process.env.BENCH_MAP_URLS ?? 50_000);
const WORKER_COUNTS = (process.env.BENCH_CRAWL_WORKERS ?? '1,2,4').split(',').map(Number);
const HOST_CONCURRENCY = 64;
const ENV = {
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  RATE_LIMIT_SCALE: String(2 ** 40),
  SCALE_MONTHLY_CREDITS: String(10 ** 9),
  CRAWL_HOST_CONCURRENCY: String(HOST_CONCURRENCY),
  CRAWL_CONCURRENCY: process.env.BENCH_CRAWL_CONCURRENCY ?? '8',
  LOG_LEVEL: 'warn',
};

const rssMb = (pid: number) => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
};
const cpuOf = (pids: number[]) => [...treeCpu(pids).values()].reduce((sum, cpu) => sum + cpu, 0);

async function call(base: string, method: string, path: string, key: string, body?: object) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-service-key': key },
    body: body && JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

buildIfStale();
process.on('exit', () => void killAll());
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
const database = `fd_bench_crawl_${randomBytes(5).toString('hex')}`;
await admin.query(`create database ${database} template template0`);
const cleanups: (() => unknown)[] = [
  async () => {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  },
];

try {
  const databaseUrl = new URL(DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const env = { ...ENV, DATABASE_URL: databaseUrl.href, CACHE_URL: redis.url };
  const site: CrawlSite = await startCrawlSite({ pages: PAGES, delayMs: DELAY_MS, siteName: 'localhost' });
  cleanups.push(() => site.close());
  const dataDir = tempDir('crawl-bench');
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const api: ApiProcess = await startApi(await freePort(), env, join(dataDir, 'api'));
  const db = new pg.Pool({ connectionString: databaseUrl.href, max: 1 });
  cleanups.push(() => db.end());
  const { apiKey } = await newAccount({ lb: api.base, db }, 'scale');
  const flush = async () => {
    const client = new Redis(redis.url);
    await client.flushdb();
    client.disconnect();
  };

  async function crawlWith(workers: number) {
    await flush();
    site.reset();
    const children: Child[] = Array.from({ length: workers }, (_, i) =>
      startChild(`worker-${i}`, process.execPath, [join(REPO_ROOT, 'bin', 'fetchdown.mjs'), 'worker'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', ...env, DATA_DIR: join(dataDir, `worker-${i}`) },
      }),
    );
    const pids = () => [api.child.process.pid!, ...children.map((child) => child.process.pid!)];
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the workers' start-up, before the clock starts
    const cpuBefore = cpuOf(pids());
    const started = performance.now();
    const { id } = await call(api.base, 'POST', '/crawl', apiKey, {
      url: `${site.origin()}/`,
      limit: PAGES,
      max_depth: 50,
      sitemap: 'include',
    });
    let peakRss = 0;
    let status: Record<string, unknown>;
    for (;;) {
      status = await call(api.base, 'GET', `/crawl/${String(id)}?limit=1`, apiKey);
      peakRss = Math.max(peakRss, ...children.map((child) => rssMb(child.process.pid!)));
      if (!['queued', 'running'].includes(String(status.status))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuOf(pids()) - cpuBefore;
    const fetched = (status.counts as { fetched: number }).fetched;
    for (const child of children) signal(child, 'SIGTERM');
    await Promise.all(children.map((child) => child.exited));
    const stats = site.stats();
    return {
      rate: fetched / seconds,
      cpuPerPage: cpu / fetched / 1000,
      fetched,
      peakRss,
      maxConcurrent: stats.hosts.localhost?.maxConcurrent ?? 0,
      twice: stats.fetchedTwice.length,
      outOfScope: stats.outOfScope.length,
      apiRss: rssMb(api.child.process.pid!),
    };
  }

  const results = new Map<number, Awaited<ReturnType<typeof crawlWith>>[]>(WORKER_COUNTS.map((n) => [n, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? WORKER_COUNTS : [...WORKER_COUNTS].reverse();
    console.error(`round ${round} of ${ROUNDS}, load average ${loadAverage()}`);
    for (const workers of order) results.get(workers)!.push(await crawlWith(workers));
  }

  // The same pages through POST /fetch, 8 at once, uncached: the API's CPU per page.
  await flush();
  const urls = Array.from({ length: Math.min(PAGES, 500) }, (_, i) => `${site.origin()}/docs/${i + 1}`);
  const fetchCpuBefore = cpuOf([api.child.process.pid!]);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < urls.length) await call(api.base, 'POST', '/fetch', apiKey, { url: urls[next++] });
    }),
  );
  const fetchCpuPerPage = (cpuOf([api.child.process.pid!]) - fetchCpuBefore) / urls.length / 1000;

  // Map of sitemaps listing MAP_URLS and half as many (search makes it read up to 10 × limit, at most 50,000).
  const mapRows: string[] = [];
  for (const count of [MAP_URLS / 2, MAP_URLS]) {
    const mapSite = await startCrawlSite({ pages: count, siteName: 'localhost' });
    const before = cpuOf([api.child.process.pid!]);
    const map = await call(api.base, 'POST', '/map', apiKey, {
      url: `${mapSite.origin()}/`,
      limit: Math.min(5000, Math.ceil(count / 10)),
      search: 'guide',
      sitemap: 'only',
    });
    const cpuMs = (cpuOf([api.child.process.pid!]) - before) / 1000;
    mapRows.push(
      `| POST /map of sitemaps listing ${count} URLs | ${(map.links as unknown[]).length} links answered; API CPU ` +
        `${cpuMs.toFixed(0)} ms (${((cpuMs * 1000) / count).toFixed(1)} µs a URL); API RSS after ` +
        `${rssMb(api.child.process.pid!).toFixed(0)} MB |`,
    );
    await mapSite.close();
  }

  const one = results.get(1)!;
  console.log(`${ROUNDS} rounds, ${PAGES} pages a crawl, pages answered after ${DELAY_MS} ms; load ${loadAverage()}\n`);
  console.log('| measure | result (min / median / max over rounds) |\n|---|---|');
  for (const workers of WORKER_COUNTS) {
    const rows = results.get(workers)!;
    const ratio = rows.map((row, i) => row.rate / one[i]!.rate);
    console.log(
      `| ${workers} worker process${workers > 1 ? 'es' : ''} | ${spread(
        rows.map((r) => r.rate),
        1,
      )} pages/s ` +
        `(${workers > 1 ? `${spread(ratio)}× one worker; ` : ''}CPU ${spread(
          rows.map((r) => r.cpuPerPage),
          1,
        )} ms a page; ` +
        `worker peak RSS ${spread(
          rows.map((r) => r.peakRss),
          0,
        )} MB; API RSS ${spread(
          rows.map((r) => r.apiRss),
          0,
        )} MB; ` +
        `most at once to the host ${Math.max(...rows.map((r) => r.maxConcurrent))} of ${HOST_CONCURRENCY}; ` +
        `fetched twice ${Math.max(...rows.map((r) => r.twice))}; out of scope ${Math.max(...rows.map((r) => r.outOfScope))}) |`,
    );
  }
  const crawlCpu = [...results.values()].flat().map((r) => r.cpuPerPage);
  console.log(
    `| CPU a page, crawl ÷ POST /fetch | ${spread(crawlCpu.map((c) => c / fetchCpuPerPage))}× ` +
      `(${fetchCpuPerPage.toFixed(1)} ms a page through /fetch) |`,
  );
  for (const row of mapRows) console.log(row);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await killAll();
}
