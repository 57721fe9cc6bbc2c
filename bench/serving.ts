// Issue 14's serving rows of `npm run bench` (alone: `npm run bench:serving`), each a ratio measured interleaved in
// one run, ROUNDS alternations whose order flips every round, min / median / max, with the load average beside them:
//   cached: POST /fetch of a cached page, 50 connections, against a bare Fastify route (bench/bare-server.ts, its own
//           process) sending the same bytes; server CPU per request of each process (/proc), and requests per second.
//   batch:  POST /fetch/batch of 20 URLs that each answer after 300 ms, against POST /fetch of one such URL; wall time
//           and the API process's CPU per URL.
//   uncached: POST /fetch of a long page with use_cache false, against the same GET, extraction and two token counts
//           in this process; wall time, and the CPU per fetch of each side.
// The page is the benchmark's median (the Scrapinghub page whose labelled article text is the median length), served
// with the slow pages by a site in this process, so the API process's CPU is the API's alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { medianBenchmarkPage } from './benchmark-pages.js';
import { extractHtml } from '../src/extract/index.js';
import { countTokens } from '../src/tokens/count.js';
import { LONG_HTML } from '../test/helpers/fixture-site.js';
import {
  cpuMicros,
  CONNECTIONS,
  loadAverage,
  loadWindow,
  median,
  spread,
  startServerChild,
  type LoadWindow,
} from './processes.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 2000);
const BATCH_URLS = 20;
const DELAY_MS = 300;
/** Requests of one kind per window of the batch row: enough server CPU to read in 10 ms ticks. */
const BATCH_REPEATS = 3;

/**
 * The benchmark's median page at /answer, a long guide at /long, and pages at /slow/<anything> that answer after
 * DELAY_MS.
 */
export async function startServingSite(): Promise<{ origin: string; close(): void }> {
  const page = medianBenchmarkPage();
  const slow = (path: string) =>
    `<!doctype html><html><head><title>Slow ${path}</title></head><body><article><h1>Slow</h1>` +
    `<p>This page answered after ${DELAY_MS} ms, for the batch row of the benchmark.</p></article></body></html>`;
  const site = createServer((req, res) => {
    const path = req.url ?? '/';
    const send = (body: Buffer | string) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path.startsWith('/slow/')) setTimeout(() => send(slow(path)), DELAY_MS);
    else if (path === '/answer') send(page);
    else if (path === '/long') send(LONG_HTML);
    else res.writeHead(404).end(); // robots.txt among others
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, close: () => site.close() };
}

async function post(origin: string, path: string, body: object): Promise<string> {
  const res = await request(`${origin}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 200)}`);
  return text;
}

/** Alternates `a` and `b` ROUNDS times, the order flipped each round so that drifting load weighs on both alike. */
export async function interleave<T>(a: () => Promise<T>, b: () => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const runs = { a: [] as T[], b: [] as T[] };
  for (let round = 0; round < ROUNDS; round++) {
    console.error(`round ${round + 1} of ${ROUNDS}, load average ${loadAverage()}`);
    if (round % 2 === 0) {
      runs.a.push(await a());
      runs.b.push(await b());
    } else {
      runs.b.push(await b());
      runs.a.push(await a());
    }
  }
  return runs;
}

/** Each round's ratio of `a` to `b`. */
export const ratios = <T>(a: T[], b: T[], of: (x: T) => number) => a.map((x, i) => of(x) / of(b[i]!));

async function cachedRow(app: { origin: string; pid: number }, site: string): Promise<string[]> {
  const body = JSON.stringify({ url: `${site}/answer` });
  const answer = await post(app.origin, '/fetch', JSON.parse(body));
  const dir = mkdtempSync(join(tmpdir(), 'fetchdown-bare-'));
  writeFileSync(join(dir, 'answer.json'), answer);
  const bare = await startServerChild<{ bare: string }>('bench/bare-server.ts', [join(dir, 'answer.json')], ['bare']);
  try {
    const target = { origin: bare.addresses.bare, pid: bare.pid };
    if (answer !== (await post(target.origin, '/fetch', JSON.parse(body)))) throw new Error('bare bytes differ');
    const before = loadAverage();
    for (const server of [app, target]) await loadWindow(server.origin, server.pid, body, WINDOW_MS / 2); // JIT warm-up
    const runs = await interleave(
      () => loadWindow(app.origin, app.pid, body, WINDOW_MS),
      () => loadWindow(target.origin, target.pid, body, WINDOW_MS),
    );
    const cpu = ratios(runs.a, runs.b, (w) => w.cpu);
    const rate = ratios(runs.a, runs.b, (w) => w.rate);
    const describe = (ws: LoadWindow[]) =>
      `${median(ws.map((w) => w.rate)).toFixed(0)} req/s, ${median(ws.map((w) => w.cpu)).toFixed(1)} µs CPU/request`;
    return [
      `cached POST /fetch (${(answer.length / 1024).toFixed(1)} KB answer), ${CONNECTIONS} connections: server CPU ` +
        `per request ÷ bare route (req/s ratio beside it)`,
      `${describe(runs.a)} (medians)`,
      `bare Fastify route, same bytes: ${describe(runs.b)}`,
      `CPU **${spread(cpu)}×**; req/s ${spread(rate)}×`,
      '≤ 1.5× CPU',
      `${before} → ${loadAverage()}`,
    ];
  } finally {
    bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function batchRow(app: { origin: string; pid: number }, site: string): Promise<string[]> {
  let unique = 0;
  const slowUrl = () => `${site}/slow/${process.pid}-${unique++}`;
  /** BATCH_REPEATS requests in turn: mean wall time each, and the API's CPU per URL. */
  const measure = async (urls: number) => {
    const cpu = cpuMicros(app.pid);
    const started = performance.now();
    for (let i = 0; i < BATCH_REPEATS; i++) {
      if (urls === 1) await post(app.origin, '/fetch', { url: slowUrl(), use_cache: false });
      else await post(app.origin, '/fetch/batch', { urls: Array.from({ length: urls }, slowUrl), use_cache: false });
    }
    const ms = (performance.now() - started) / BATCH_REPEATS;
    return { ms, cpuPerUrl: (cpuMicros(app.pid) - cpu) / (BATCH_REPEATS * urls) };
  };
  const before = loadAverage();
  await measure(BATCH_URLS); // warm-up
  const runs = await interleave(
    () => measure(BATCH_URLS),
    () => measure(1),
  );
  const describe = (xs: { ms: number; cpuPerUrl: number }[]) =>
    `${median(xs.map((x) => x.ms)).toFixed(0)} ms, ${median(xs.map((x) => x.cpuPerUrl)).toFixed(0)} µs CPU per URL`;
  return [
    `batch of ${BATCH_URLS} URLs × ${DELAY_MS} ms upstream: wall time ÷ one such URL (CPU per URL ratio beside it)`,
    `${describe(runs.a)} (medians)`,
    `one URL: ${describe(runs.b)}`,
    `time **${spread(ratios(runs.a, runs.b, (x) => x.ms))}×**; CPU per URL ` +
      `${spread(ratios(runs.a, runs.b, (x) => x.cpuPerUrl))}×`,
    '≤ 1.2× time',
    `${before} → ${loadAverage()}`,
  ];
}

/** Fetches of the long page a window holds: a window's CPU is read in 10 ms ticks. */
const UNCACHED_REPEATS = 10;

async function uncachedRow(app: { origin: string; pid: number }, site: string): Promise<string[]> {
  const url = `${site}/long`;
  const here = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const direct = async () => {
    const res = await request(url);
    const page = extractHtml(await res.body.text(), url);
    countTokens(page.markdown);
    countTokens(page.text);
  };
  const viaApi = async () => void (await post(app.origin, '/fetch', { url, use_cache: false }));
  /** UNCACHED_REPEATS in turn: mean wall time of each, and CPU per fetch as `cpu` reads it. */
  const measure = async (fetchOnce: () => Promise<void>, cpu: () => number) => {
    const [cpuBefore, started] = [cpu(), performance.now()];
    for (let i = 0; i < UNCACHED_REPEATS; i++) await fetchOnce();
    return { ms: (performance.now() - started) / UNCACHED_REPEATS, cpu: (cpu() - cpuBefore) / UNCACHED_REPEATS };
  };
  const before = loadAverage();
  for (let i = 0; i < 3; i++) for (const fetchOnce of [viaApi, direct]) await measure(fetchOnce, here); // JIT warm-up
  const runs = await interleave(
    () => measure(viaApi, () => cpuMicros(app.pid)),
    () => measure(direct, here),
  );
  const describe = (xs: { ms: number; cpu: number }[]) =>
    `${median(xs.map((x) => x.ms)).toFixed(1)} ms, ${(median(xs.map((x) => x.cpu)) / 1000).toFixed(1)} ms CPU`;
  return [
    'uncached POST /fetch of a long page: wall time ÷ the same GET, extraction and counting in the bench process ' +
      '(CPU per fetch ratio beside it)',
    `${describe(runs.a)} (medians)`,
    `undici GET + extraction + counting: ${describe(runs.b)}`,
    `time **${spread(ratios(runs.a, runs.b, (x) => x.ms))}×**; CPU ${spread(ratios(runs.a, runs.b, (x) => x.cpu))}×`,
    '≤ 1.15× time',
    `${before} → ${loadAverage()}`,
  ];
}

/** The rows against the API at `app` (a process of its own): measure, baseline, ratio, target, load average. */
export async function runServingBench(app: { origin: string; pid: number }): Promise<string[][]> {
  const site = await startServingSite();
  try {
    return [await cachedRow(app, site.origin), await batchRow(app, site.origin), await uncachedRow(app, site.origin)];
  } finally {
    site.close();
  }
}

export const SERVING_HEADER = [
  '| measure | Fetchdown | baseline (same run) | ratio: min / median / max over the rounds | target | load average |',
  '|---|---|---|---|---|---|',
];

// `npm run bench:serving`: these rows alone, against the shipped configuration of bench/servers.ts.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const servers = await startServerChild<{ app: string; pid: number }>('bench/servers.ts', [], ['app', 'pid']);
  try {
    const rows = await runServingBench({ origin: servers.addresses.app, pid: servers.addresses.pid });
    console.log(`${ROUNDS} rounds, ${WINDOW_MS} ms windows for the cached row\n`);
    for (const line of [...SERVING_HEADER, ...rows.map((row) => `| ${row.join(' | ')} |`)]) console.log(line);
  } finally {
    servers.stop();
  }
}
