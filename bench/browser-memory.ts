// The browser pool's memory, for bench/browser.ts: what one busy slot adds to Chromium (a pool of 1 against a pool of
// 4, every slot rendering), and Node's and Chromium's memory sampled every 100 renders of a long run.
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { makeBrowser, render, tryRender, type Browser, type Job } from './browser-runs.js';
import { chromiumUsage, nodeRssMb, type TreeUsage } from './browser-procs.js';
import { loadAverage, median } from './processes.js';

/** V8's collector, so that Node's samples hold what is kept rather than garbage not yet collected. */
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** How long each busy page waits (`wait_for`), and when in that wait the memory is read (the median is kept). */
const BUSY_MS = 3000;
const SAMPLES_AT_MS = [1000, 1500, 2000, 2500];

export interface SlotMemory {
  page: string;
  /** Chromium's RSS and PSS sums (MB) with every slot busy, by pool size. */
  rss: Record<number, number>;
  pss: Record<number, number>;
}

async function withBrowser<T>(size: number, use: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = makeBrowser(size);
  try {
    return await use(browser);
  } finally {
    await browser.pool.close();
  }
}

/** Chromium's memory while `size` pages of `job` render at once (after a warm-up that opened every slot). */
async function busyMemory(size: number, job: Job): Promise<{ rss: number; pss: number }> {
  return withBrowser(size, async ({ fetcher }) => {
    const all = (page: Job['page']) => Array.from({ length: size }, () => render(fetcher, { ...job, page }));
    await Promise.all(all(job.page));
    await sleep(500);
    const started = performance.now();
    const rendering = Promise.all(all({ ...job.page, waitFor: BUSY_MS }));
    const samples: TreeUsage[] = [];
    for (const at of SAMPLES_AT_MS) {
      await sleep(at - (performance.now() - started));
      samples.push(chromiumUsage(true));
    }
    await rendering;
    return { rss: median(samples.map((u) => u.rssMb)), pss: median(samples.map((u) => u.pssMb)) };
  });
}

/** Pools of `sizes` in interleaved rounds, each with every slot rendering `job`; the median of each size's readings. */
export async function slotMemory(page: string, job: Job, rounds: number, sizes = [1, 4]): Promise<SlotMemory> {
  const readings = new Map<number, { rss: number; pss: number }[]>(sizes.map((size) => [size, []]));
  for (let round = 0; round < rounds; round++) {
    console.error(`slot memory (${page}): round ${round + 1} of ${rounds}, load ${loadAverage()}`);
    for (const size of round % 2 === 0 ? sizes : [...sizes].reverse())
      readings.get(size)!.push(await busyMemory(size, job));
  }
  const of = (key: 'rss' | 'pss') =>
    Object.fromEntries(sizes.map((size) => [size, median(readings.get(size)!.map((r) => r[key]))]));
  return { page, rss: of('rss'), pss: of('pss') };
}

export interface MemorySample {
  renders: number;
  nodeRss: number;
  nodeHeap: number;
  chromiumRss: number;
  chromiumPss: number;
  processes: number;
  contexts: number;
}

/**
 * `total` renders, `concurrency` at once on a pool of `size`, cycling through `jobs`; memory read every `every`
 * renders (and once after a warm-up), after a full garbage collection of this process.
 */
export async function memoryRun(
  jobs: Job[],
  options: { total: number; size: number; concurrency: number; every: number },
): Promise<{ samples: MemorySample[]; failed: number; seconds: number }> {
  return withBrowser(options.size, async (browser) => {
    const samples: MemorySample[] = [];
    let failed = 0;
    const sample = (renders: number) => {
      gc();
      const chromium = chromiumUsage(true);
      samples.push({
        renders,
        nodeRss: nodeRssMb(),
        nodeHeap: process.memoryUsage().heapUsed / 2 ** 20,
        chromiumRss: chromium.rssMb,
        chromiumPss: chromium.pssMb,
        processes: chromium.processes,
        contexts: browser.pool.stats().contexts,
      });
    };
    await Promise.all(jobs.slice(0, options.concurrency).map((job) => render(browser.fetcher, job)));
    sample(0);
    let started = 0;
    let done = 0;
    const begun = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (started < options.total) {
          const job = jobs[started++ % jobs.length]!;
          if (!(await tryRender(browser.fetcher, job))) failed++;
          if (++done % options.every === 0) {
            sample(done);
            console.error(`memory run: ${done} of ${options.total} renders, load ${loadAverage()}`);
          }
        }
      }),
    );
    return { samples, failed, seconds: (performance.now() - begun) / 1000 };
  });
}

/** Least-squares slope of the points' y over their x. */
export function slope(points: [number, number][]): number {
  const mean = (i: 0 | 1) => points.reduce((sum, p) => sum + p[i], 0) / points.length;
  const [mx, my] = [mean(0), mean(1)];
  const num = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const den = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}
