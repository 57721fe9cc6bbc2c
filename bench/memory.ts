// `npm run bench:memory`: the resident memory of one API process (the build, dist/main.js) through ten rounds of 50
// concurrent uncached fetches of ~1 MB pages: idle, peak per round (Linux's VmHWM when there is /proc, else sampled
// from /metrics) and settled after each round, to show the bound (docs/operations.md, "Monitoring") and that nothing
// accumulates.
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { killAll, freePort, sleep } from '../test/topology/children.js';
import { startSite } from '../test/topology/site.js';
import { buildIfStale } from '../test/helpers/build.js';
import { startApi, tempDir } from '../test/topology/stack.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** How long a round's garbage is given to be collected before the settled reading. */
const SETTLE_MS = 3000;
const MB = 1024 * 1024;

/** Resident and peak resident memory of a process from /proc (Linux), or null elsewhere. */
function procMemory(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

async function metricsRss(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1] ?? NaN);
}

/** Peak of samples taken every 50 ms while `work` runs (the fallback where there is no VmHWM). */
async function sampledPeak(base: string, work: Promise<unknown>): Promise<number> {
  let peak = 0;
  let done = false;
  void work.finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, await metricsRss(base));
    await sleep(50);
  }
  return peak;
}

buildIfStale();
const site = await startSite();
const dataDir = tempDir('memory');
// Embedded cache without its memory front (CACHE_MEMORY_ENTRIES=0), so kept pages do not count as growth.
const api = await startApi(
  await freePort(),
  {
    LOG_LEVEL: 'warn',
    FETCH_TIMEOUT_MS: '60000',
    CACHE_MEMORY_ENTRIES: '0',
    RATE_LIMIT_ANONYMOUS: '0',
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    ROBOTS_TXT: 'ignore',
    BROWSER_POOL_SIZE: '0',
    // Extraction threads as configured here (one per core by default; EXTRACT_WORKERS=0 for the single thread).
    ...(process.env.EXTRACT_WORKERS !== undefined && { EXTRACT_WORKERS: process.env.EXTRACT_WORKERS }),
  },
  dataDir,
);
const pid = api.child.process.pid!;
let page = 0;
/** Failed fetches by status and code. */
const failures = new Map<string, number>();
const round = () =>
  Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const res = await fetch(`${api.base}/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.url(`/large/${Date.now()}-${page++}`), max_tokens: 2000 }),
      });
      const body = (await res.json()) as { code?: string };
      if (res.status !== 200) {
        const failure = `${res.status} ${body.code ?? ''}`;
        failures.set(failure, (failures.get(failure) ?? 0) + 1);
      }
    }),
  );

// Whatever happens, the process and the site go: a failed run must not leave an API process behind.
process.on('exit', () => void killAll());
await sleep(SETTLE_MS);
const idle = procMemory(pid)?.rss ?? (await metricsRss(api.base));
const settled: number[] = [];
console.log(
  `EXTRACT_WORKERS=${process.env.EXTRACT_WORKERS ?? 'default'}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`idle after start: ${Math.round(idle / MB)} MB\n`);
console.log('| round | peak RSS so far (MB) | RSS 3 s after (MB) |\n|---|---|---|');
for (let i = 1; i <= ROUNDS; i++) {
  const work = round();
  const sampled = procMemory(pid) === null ? await sampledPeak(api.base, work) : (await work, procMemory(pid)!.peak);
  await sleep(SETTLE_MS);
  const after = procMemory(pid)?.rss ?? (await metricsRss(api.base));
  settled.push(after);
  console.log(`| ${i} | ${Math.round(sampled / MB)} | ${Math.round(after / MB)} |`);
}
await killAll();
await site.close();
rmSync(dataDir, { recursive: true, force: true });

const growth = settled[settled.length - 1]! - settled[0]!;
console.log(
  `\n${ROUNDS} rounds of ${CONCURRENCY} concurrent uncached fetches of ~1 MB pages (${site.hits('/large/')} fetched; failed: ${[...failures].map(([code, n]) => `${n} × ${code}`).join(', ') || 'none'})`,
);
console.log(`settled growth from round 1 to ${ROUNDS}: ${Math.round(growth / MB)} MB`);
