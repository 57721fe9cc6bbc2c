// What bench/browser.ts renders and how: the real pool and fetcher (BROWSER_WAIT_MS and FETCH_TIMEOUT_MS at their
// defaults, extraction in this thread) with the browser tests' address policy (127.0.0.1 is public, every other
// address private), the page-option variants it compares, and timed batches of renders with their CPU.
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrowserPool, type BrowserPool } from '../src/fetchers/browser-pool.js';
import { createBrowserFetcher } from '../src/fetchers/browser.js';
import type { FetchedPage, Fetcher, PageOptions } from '../src/fetchers/types.js';
import { createAddressPolicy } from '../src/net/guard.js';
import { chromiumUsage, nodeCpuMs } from './browser-procs.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const policy = createAddressPolicy({ allowPrivateNetworks: false, isBlocked: (ip) => ip !== '127.0.0.1' });

export interface Browser {
  pool: BrowserPool;
  fetcher: Fetcher;
}

/** A pool of `size` pages (queue 32, as BROWSER_QUEUE_MAX) and its fetcher, with the service's default waits. */
export function makeBrowser(size: number): Browser {
  const pool = createBrowserPool({
    policy,
    size,
    queueMax: 32,
    chromiumPath: CHROMIUM_PATH,
    userAgent: 'FetchdownBot/1.0 (bench)',
    acquireTimeoutMs: 120_000,
  });
  return { pool, fetcher: createBrowserFetcher({ pool, policy, waitMs: 5000, timeoutMs: 20_000, maxBytes: 10 << 20 }) };
}

/** One render of a page and what it must show; throws (the run is void) if it fails or lacks `expect`. */
export interface Job {
  url: string;
  page?: PageOptions;
  expect: string;
}

export async function render(fetcher: Fetcher, job: Job): Promise<FetchedPage> {
  const outcome = await fetcher.fetch(new URL(job.url), job.page ? { page: job.page } : {});
  const what = `${job.url.replace(/^http:\/\/[^/]+/, '')} ${JSON.stringify(job.page ?? {})}`;
  if (!outcome.ok) throw new Error(`${what}: ${outcome.failure.code}, ${outcome.failure.detail}`);
  if (!outcome.page.markdown.includes(job.expect)) {
    const end = outcome.page.markdown.slice(-80).replace(/\s+/g, ' ');
    throw new Error(`${what}: rendered without ${JSON.stringify(job.expect)} (it ends "${end}")`);
  }
  return outcome.page;
}

/** Renders that failed or lacked their text, by message: printed at the end, never a reason to stop the run. */
export const incomplete = new Map<string, number>();

/** render(), counted in `incomplete` instead of thrown; true when the page came back with its text. */
export async function tryRender(fetcher: Fetcher, job: Job): Promise<boolean> {
  try {
    await render(fetcher, job);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    incomplete.set(message, (incomplete.get(message) ?? 0) + 1);
    return false;
  }
}

export interface BatchFigures {
  rendersPerSecond: number;
  msPerRender: number;
  /** CPU (ms) a render: this process (fetcher, extraction, egress proxy, fixture site) and Chromium's processes. */
  nodeCpu: number;
  chromiumCpu: number;
  /** Runs that did not give their page with its text (tryRender). */
  failed: number;
}

/** Resolves once the pool has wiped every page it lent (its capacity comes back only after the wipe). */
export async function settled(pool: BrowserPool): Promise<void> {
  for (let waited = 0; pool.stats().busy > 0 && waited < 5000; waited += 20) await sleep(20);
}

/**
 * `count` runs of `once` (a render, a lease), one after another, with the CPU they cost: read once the pool has
 * wiped the last page, so that every run's wipe is counted.
 */
export async function timedBatch(
  pool: BrowserPool,
  once: () => Promise<boolean>,
  count: number,
): Promise<BatchFigures> {
  await sleep(200); // the previous batch's pages recycled, its processes quiet
  const node = nodeCpuMs();
  const chromium = chromiumUsage().cpuMs;
  const started = performance.now();
  let failed = 0;
  for (let i = 0; i < count; i++) if (!(await once())) failed++;
  const seconds = (performance.now() - started) / 1000;
  await settled(pool);
  return {
    rendersPerSecond: count / seconds,
    msPerRender: (seconds * 1000) / count,
    nodeCpu: (nodeCpuMs() - node) / count,
    chromiumCpu: (chromiumUsage().cpuMs - chromium) / count,
    failed,
  };
}

/** The page-option variants of part 1, on the interaction site's pages (test/helpers/interaction-site.ts). */
export function variants(url: (path: string) => string): { name: string; job: Job }[] {
  const items = 'Item number 5:';
  return [
    { name: 'plain render (/more)', job: { url: url('/more'), expect: items } },
    {
      name: 'wait_for a selector that appears at 300 ms (/late?ms=300)',
      job: { url: url('/late?ms=300'), page: { waitFor: '#ready' }, expect: 'Arrived late' },
    },
    { name: 'wait_for 300 ms (/more)', job: { url: url('/more'), page: { waitFor: 300 }, expect: items } },
    {
      name: '5 actions: 3 clicks on "load more", a scroll to the end, a 300 ms wait (/more)',
      job: {
        url: url('/more'),
        page: {
          actions: [
            { type: 'click', selector: '#more' },
            { type: 'click', selector: '#more' },
            { type: 'click', selector: '#more' },
            { type: 'scroll', to_end: true },
            { type: 'wait', milliseconds: 300 },
          ],
        },
        expect: 'Item number 20:',
      },
    },
    {
      name: 'full-page PNG screenshot (/more)',
      job: { url: url('/more'), page: { screenshot: { fullPage: true, format: 'png' } }, expect: items },
    },
  ];
}

/**
 * `count` renders of `job` at once on a new pool of `size` (warmed first: launched, every slot opened): how many came
 * back with their text, each one's latency, renders per second and CPU per render.
 */
export async function concurrentRenders(size: number, job: Job, count: number) {
  const { pool, fetcher } = makeBrowser(size);
  try {
    await Promise.all(Array.from({ length: size }, () => render(fetcher, job)));
    const [node, chromium, started] = [nodeCpuMs(), chromiumUsage().cpuMs, performance.now()];
    const latencies: number[] = [];
    let complete = 0;
    await Promise.all(
      Array.from({ length: count }, async () => {
        const t = performance.now();
        const ok = await tryRender(fetcher, job);
        latencies.push(performance.now() - t);
        if (ok) complete++;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await settled(pool);
    const cpu = (nodeCpuMs() - node + chromiumUsage().cpuMs - chromium) / count;
    return { latencies, complete, rendersPerSecond: count / seconds, cpu };
  } finally {
    await pool.close();
  }
}
