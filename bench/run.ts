// `npm run bench`: the service's figures against baselines measured in the same run, printed as a Markdown table.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Pool, request } from 'undici';
import { extractHtml } from '../src/extract/index.js';
import { countTokens } from '../src/tokens/count.js';
import { runExtractionBench } from './extraction.js';
import { fetchersRows, runFetchersBench } from './fetchers.js';

const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const CONNECTIONS = 50;
const WARM_UP_MS = 1000;

interface Servers {
  app: string;
  bare: string;
  site: string;
}

async function startServers(): Promise<{ servers: Servers; pid: number | undefined; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The child logs as a deployment would (to stdout, read and dropped here); its addresses come as one JSON line.
  const servers = await new Promise<Servers>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = (() => {
        try {
          return JSON.parse(line) as Partial<Servers>;
        } catch {
          return {};
        }
      })();
      if (parsed.app && parsed.bare && parsed.site) resolve(parsed as Servers);
    });
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
  return { servers, pid: child.pid, stop: () => child.kill() };
}

/**
 * CPU time (µs) the server process has used, where /proc tells (Linux); per request it shows whether the server got
 * cheaper whatever else the machine was doing, which requests per second on a shared machine cannot.
 */
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime + stime, in USER_HZ (100) ticks
  } catch {
    return undefined;
  }
}

/** Requests answered for POST `path` with `body`, CONNECTIONS at once, in `durationMs`. */
async function load(
  origin: string,
  path: string,
  body: string,
  durationMs: number,
): Promise<{ done: number; ms: number; cpu: number }> {
  const pool = new Pool(origin, { connections: CONNECTIONS });
  let done = 0;
  const until = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const res = await pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json' } });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
      done++;
    }
  };
  const cpuBefore = cpuMicros(serverPid);
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const ms = performance.now() - started;
  const cpu = (cpuMicros(serverPid) ?? NaN) - (cpuBefore ?? NaN);
  await pool.close();
  return { done, ms, cpu };
}

/**
 * Requests per second of two servers, DURATION_MS each: both warmed up first (JIT), then measured in the order
 * a, b, b, a for half the time each, so that load from other processes drifting during the run weighs on both alike.
 */
async function compareThroughput(a: string, b: string, path: string, body: string): Promise<[Throughput, Throughput]> {
  await load(a, path, body, WARM_UP_MS);
  await load(b, path, body, WARM_UP_MS);
  const totals = new Map([a, b].map((origin) => [origin, { done: 0, ms: 0, cpu: 0 }]));
  for (const origin of [a, b, b, a]) {
    const { done, ms, cpu } = await load(origin, path, body, DURATION_MS / 2);
    const total = totals.get(origin)!;
    total.done += done;
    total.ms += ms;
    total.cpu += cpu;
  }
  const of = (origin: string): Throughput => {
    const { done, ms, cpu } = totals.get(origin)!;
    return { rate: (done * 1000) / ms, cpuPerRequest: cpu / done };
  };
  return [of(a), of(b)];
}

interface Throughput {
  rate: number;
  /** Server CPU µs per request (NaN where /proc is missing). */
  cpuPerRequest: number;
}

async function timeIt(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn(); // warm-up
  const started = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return (performance.now() - started) / runs;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const describeThroughput = (t: Throughput) =>
  `${fmt(t.rate, 0)} req/s${Number.isNaN(t.cpuPerRequest) ? '' : ` (${fmt(t.cpuPerRequest)} µs of server CPU each)`}`;

const { servers, pid: serverPid, stop } = await startServers();
try {
  const article = JSON.stringify({ url: `${servers.site}/article` });
  const [bare, cached] = await compareThroughput(servers.bare, servers.app, '/fetch', article);

  const longUrl = `${servers.site}/long`;
  const rawMs = await timeIt(async () => {
    const res = await request(longUrl);
    const page = extractHtml(await res.body.text(), longUrl);
    countTokens(page.markdown);
    countTokens(page.text);
  }, 30);
  const uncachedMs = await timeIt(async () => {
    const res = await request(`${servers.app}/fetch`, {
      method: 'POST',
      body: JSON.stringify({ url: longUrl, use_cache: false }),
      headers: { 'content-type': 'application/json' },
    });
    await res.body.text();
  }, 30);

  const batchUrls = (run: number) =>
    Array.from({ length: 20 }, (_, i) => `${servers.site}/delay/300/bench-${run}-${i}`);
  let run = 0;
  const batchMs = await timeIt(async () => {
    const res = await request(`${servers.app}/fetch/batch`, {
      method: 'POST',
      body: JSON.stringify({ urls: batchUrls(run++), use_cache: false }),
      headers: { 'content-type': 'application/json' },
    });
    await res.body.text();
  }, 5);

  const extraction = await runExtractionBench();
  const fetchers = await runFetchersBench();

  const rows = [
    [
      'cached POST /fetch, 50 connections',
      describeThroughput(cached),
      `bare Fastify route, same bytes: ${describeThroughput(bare)}`,
      `${fmt(cached.rate / bare.rate, 2)}×`,
      '≥ 0.6×',
    ],
    [
      'uncached POST /fetch, long page',
      `${fmt(uncachedMs)} ms`,
      `undici GET + extraction + counting: ${fmt(rawMs)} ms`,
      `${fmt(uncachedMs / rawMs, 2)}×`,
      '≤ 1.15×',
    ],
    [
      'batch of 20 pages × 300 ms upstream',
      `${fmt(batchMs, 0)} ms`,
      'one page: 300 ms',
      `${fmt(batchMs / 300, 2)}×`,
      '≤ 1.3×',
    ],
    [
      'extraction, 181 benchmark pages',
      `${fmt(extraction.pagesPerSecond)} pages/s, F1 ${fmt(extraction.f1, 3)}`,
      `Readability on linkedom: ${fmt(extraction.baseline.pagesPerSecond)} pages/s, F1 ` +
        `${fmt(extraction.baseline.f1, 3)}`,
      `${fmt(extraction.pagesPerSecond / extraction.baseline.pagesPerSecond, 2)}×`,
      '≥ 40 pages/s',
    ],
  ];
  console.log('| measure | Fetchdown | baseline (same run) | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const row of [...rows, ...fetchersRows(fetchers)]) console.log(`| ${row.join(' | ')} |`);
  if (extraction.tokensPerByte !== undefined)
    console.log(`\nCalibrated tokens per HTML byte (for /estimate): ${extraction.tokensPerByte.toFixed(4)}`);
} finally {
  stop();
}

// Issue 14's rows (extraction threads: head of line, both cores) start two API processes of their own.
await import('./threads.js');
