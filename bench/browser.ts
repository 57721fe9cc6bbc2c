// `npm run bench:browser [-- --renders N --rounds N --batch N]` (issue 34): the browser fetcher with the page options
// of a request, through the real pool and fetcher (bench/browser-runs.ts) against loopback fixture pages
// (test/helpers/interaction-site.ts, test/helpers/fixture-fetchers.ts' app shell, bench/serving.ts' median
// benchmark article when ../shared/bench is there):
//   1. renders per second and CPU per render of a plain render, wait_for (a selector, a pause), 5 actions and a
//      full-page screenshot, one render at a time on a warm pool of 4: `--rounds` (3) interleaved rounds of `--batch`
//      (10) renders each, the order rotated every round; ratios against the plain render of the same round. Beside
//      them, a lease alone (the new page every render gets, wiped after) and the warm pool's CPU while idle;
//   2. screenshot bytes (PNG and JPEG, viewport and full page) of a short and a tall page;
//   3. 8 renders at once of a JavaScript page (the app shell) on pools of 2 and 4 (queue 32), interleaved rounds:
//      how many came back with their rendered text, p50 / p99 latency, CPU per render;
//   4. the memory one busy slot needs: Chromium with a pool of 1 against 4, every slot rendering;
//   5. `--renders` (1,000) renders, 4 at once on a pool of 4, cycling through part 1's options, mobile, and the
//      caller's headers: Node's RSS (after a full GC) and Chromium's, every 100 renders.
// CPU: this process from process.cpuUsage() (every thread: fetcher, extraction, egress proxy, fixture sites) and
// Chromium's process tree from /proc (bench/browser-procs.ts: utime + stime of each live process, plus cutime +
// cstime, the CPU of the children it reaped). Memory: the sum of VmRSS over Chromium's processes (shared pages
// counted once per process) and of their PSS (shared pages split between them), from /proc.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { benchmarkDir } from './benchmark-pages.js';
import { memoryRun, slope, slotMemory, type MemorySample } from './browser-memory.js';
import { chromiumUsage } from './browser-procs.js';
import {
  concurrentRenders,
  incomplete,
  makeBrowser,
  render,
  settled,
  tryRender,
  timedBatch,
  variants,
  type BatchFigures,
  type Job,
} from './browser-runs.js';
import { loadAverage, spread } from './processes.js';
import { startServingSite } from './serving.js';
import { startFetcherSite } from '../test/helpers/fixture-fetchers.js';
import { BEARER_TOKEN, startInteractionSite, type InteractionSite } from '../test/helpers/interaction-site.js';

const { values: flags } = parseArgs({
  options: {
    renders: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '3' },
    batch: { type: 'string', default: '10' },
  },
});
const RENDERS = Number(flags.renders);
const ROUNDS = Number(flags.rounds);
const BATCH = Number(flags.batch);
const CONCURRENT = 8;
/** One slot's memory is a difference of two noisy sums: more rounds than the rest. */
const SLOT_ROUNDS = Math.max(ROUNDS, 5);

const row = (...cells: string[]) => `| ${cells.join(' | ')} |`;
/** min / median / max of `of` over the rounds. */
const over = <T>(runs: T[], of: (run: T, round: number) => number, digits = 2) => spread(runs.map(of), digits);

/** Parts 1 and 2, on one warm pool of 4. */
async function pageOptions(site: InteractionSite): Promise<string[]> {
  const browser = makeBrowser(4);
  const list = [
    ...variants(site.url).map(({ name, job }) => ({ name, once: () => tryRender(browser.fetcher, job) })),
    // What every render pays before it loads anything: the lease's new page, wiped and closed after it.
    {
      name: 'a lease alone and its wipe: a new page, nothing loaded',
      once: async () => {
        const leased = await browser.pool.withPage(async () => 0);
        await settled(browser.pool);
        return leased.ok;
      },
    },
  ];
  const batches = list.map(() => [] as BatchFigures[]);
  const shots: string[] = [];
  let idle: number;
  try {
    // The launch, every slot's context, and each page once.
    await Promise.all(list.slice(0, 4).map(({ once }) => once()));
    for (const { once } of list) await once();
    for (let round = 0; round < ROUNDS; round++) {
      console.error(`page options: round ${round + 1} of ${ROUNDS}, load ${loadAverage()}`);
      for (let k = 0; k < list.length; k++) {
        const i = (k + round) % list.length;
        batches[i]!.push(await timedBatch(browser.pool, list[i]!.once, BATCH));
      }
    }
    const before = chromiumUsage().cpuMs;
    await sleep(5000);
    idle = (chromiumUsage().cpuMs - before) / 5;
    for (const [path, expect] of [
      ['/more', 'Item number 5:'],
      ['/tall', 'Item number 120:'],
    ] as const)
      for (const fullPage of [false, true])
        for (const format of ['png', 'jpeg'] as const) {
          const job = { url: site.url(path), page: { screenshot: { fullPage, format } }, expect };
          const bytes = (await render(browser.fetcher, job)).shots![0]!.bytes;
          const px = format === 'png' ? ` (${bytes.readUInt32BE(16)}×${bytes.readUInt32BE(20)} px)` : '';
          shots.push(
            `${path} ${fullPage ? 'full page' : 'viewport'} ${format} ${(bytes.length / 1024).toFixed(0)} KB${px}`,
          );
        }
  } finally {
    await browser.pool.close();
  }
  const plain = batches[0]!;
  const cpu = (f: BatchFigures) => f.nodeCpu + f.chromiumCpu;
  return [
    `Page options, one render at a time on a warm pool of 4, ${ROUNDS} rounds of ${BATCH} (min / median / max):\n`,
    row(
      'render',
      'renders/s',
      'ms a render',
      'CPU a render (ms): Node + Chromium',
      'renders/s ÷ plain',
      'CPU ÷ plain',
      'failed',
    ),
    row(...Array<string>(7).fill('---')),
    ...list.map(({ name }, i) => {
      const b = batches[i]!;
      return row(
        name,
        over(b, (f) => f.rendersPerSecond),
        over(b, (f) => f.msPerRender, 0),
        `${over(b, cpu, 0)} (${over(b, (f) => f.nodeCpu, 0)} + ${over(b, (f) => f.chromiumCpu, 0)})`,
        over(b, (f, r) => f.rendersPerSecond / plain[r]!.rendersPerSecond),
        over(b, (f, r) => cpu(f) / cpu(plain[r]!)),
        `${b.reduce((sum, f) => sum + f.failed, 0)} of ${b.length * BATCH}`,
      );
    }),
    `\nThe warm pool of 4 doing nothing: Chromium ${idle.toFixed(0)} ms of CPU a second (5 s, after the rounds).`,
    `\nScreenshot bytes: ${shots.join('; ')}.`,
  ];
}

/** Part 3: CONCURRENT renders at once of the app shell on pools of 2 and 4, in interleaved rounds. */
async function concurrency(appShell: Job): Promise<string[]> {
  const sizes = [2, 4];
  const runs = new Map(sizes.map((size) => [size, [] as Awaited<ReturnType<typeof concurrentRenders>>[]]));
  for (let round = 0; round < ROUNDS; round++) {
    console.error(`${CONCURRENT} at once: round ${round + 1} of ${ROUNDS}, load ${loadAverage()}`);
    for (const size of round % 2 === 0 ? sizes : [...sizes].reverse())
      runs.get(size)!.push(await concurrentRenders(size, appShell, CONCURRENT));
  }
  const quantile = (values: number[], q: number) =>
    [...values].sort((a, b) => a - b)[Math.ceil(q * values.length) - 1]!.toFixed(0);
  return [
    `\n${CONCURRENT} renders at once of the app shell (it fetches its data, renders 150 ms later), ${ROUNDS} rounds:\n`,
    row('pool', 'complete with their text', 'latency p50 / p99 (ms)', 'renders/s', 'CPU a render (ms)'),
    row(...Array<string>(5).fill('---')),
    ...sizes.map((size) => {
      const r = runs.get(size)!;
      const latencies = r.flatMap((run) => run.latencies);
      return row(
        `BROWSER_POOL_SIZE=${size}, queue 32`,
        `${r.reduce((sum, run) => sum + run.complete, 0)} of ${latencies.length}`,
        `${quantile(latencies, 0.5)} / ${quantile(latencies, 0.99)}`,
        over(r, (run) => run.rendersPerSecond),
        over(r, (run) => run.cpu, 0),
      );
    }),
  ];
}

/** Part 4: Chromium with every slot busy, pools of 1 and 4. */
async function slotSizes(pages: { name: string; job: Job }[]): Promise<string[]> {
  const lines = [
    `\nChromium's memory with every slot rendering (wait_for 3000 ms, read 4 times from 1 to 2.5 s), median of ${SLOT_ROUNDS} rounds:\n`,
    row('page', 'pool of 1: RSS sum / PSS sum (MB)', 'pool of 4', 'each slot past the first: RSS / PSS (MB)'),
    row(...Array<string>(4).fill('---')),
  ];
  for (const { name, job } of pages) {
    const { rss, pss } = await slotMemory(name, job, SLOT_ROUNDS);
    const pair = (size: number) => `${rss[size]!.toFixed(0)} / ${pss[size]!.toFixed(0)}`;
    const slot = `${((rss[4]! - rss[1]!) / 3).toFixed(0)} / ${((pss[4]! - pss[1]!) / 3).toFixed(0)}`;
    lines.push(row(name, pair(1), pair(4), slot));
  }
  return lines;
}

/** Part 5: memory every 100 renders of a long run. */
async function memoryOverRenders(jobs: Job[]): Promise<string[]> {
  const run = await memoryRun(jobs, { total: RENDERS, size: 4, concurrency: 4, every: 100 });
  const series = (key: keyof Omit<MemorySample, 'renders'>) => {
    const s = run.samples;
    const steady = s.filter((x) => x.renders > 0);
    const growth = 100 * slope(steady.map((x) => [x.renders, x[key]]));
    return (
      `${s.map((x) => x[key].toFixed(0)).join(', ')} (after the warm-up: first ${steady[0]![key].toFixed(0)}, ` +
      `last ${steady.at(-1)![key].toFixed(0)}, least-squares slope ${growth.toFixed(1)} per 100 renders)`
    );
  };
  return [
    `\n${RENDERS} renders, 4 at once on a pool of 4, cycling through ${jobs.length} kinds (part 1's, mobile, ` +
      `headers): ${(RENDERS / run.seconds).toFixed(2)} renders/s, ${run.failed} failed or without their text. ` +
      'Samples after the warm-up (0) and every 100 renders, memory in MB:\n',
    row('measure', 'samples'),
    row('---', '---'),
    row("Node's RSS (after a full GC)", series('nodeRss')),
    row("Node's heap used", series('nodeHeap')),
    row("Chromium's RSS, summed over its processes", series('chromiumRss')),
    row("Chromium's PSS, summed", series('chromiumPss')),
    row("Chromium's processes", series('processes')),
    row("the pool's contexts", run.samples.map((x) => x.contexts).join(', ')),
  ];
}

const loads = [loadAverage()];
const site = await startInteractionSite();
const fixtures = await startFetcherSite();
const serving = benchmarkDir() ? await startServingSite() : null;
const out: string[] = [];
try {
  out.push(...(await pageOptions(site)));
  out.push(...(await concurrency({ url: fixtures.url('/app-shell'), expect: 'Rendered by Script' })));
  const busyPages = [{ name: '/more', job: { url: site.url('/more'), expect: 'Item number 5:' } }];
  if (serving)
    busyPages.push({ name: 'median benchmark article', job: { url: `${serving.origin}/answer`, expect: '' } });
  out.push(...(await slotSizes(busyPages)));
  out.push(
    ...(await memoryOverRenders([
      ...variants(site.url).map((v) => v.job),
      { url: site.url('/whoami'), page: { mobile: true }, expect: 'Mobile Safari' },
      { url: site.url('/private'), page: { headers: { authorization: BEARER_TOKEN } }, expect: 'Members only' },
    ])),
  );
} finally {
  serving?.close();
  await fixtures.close();
  await site.close();
}
loads.push(loadAverage());
console.log(`\nnpm run bench:browser -- --renders ${RENDERS} --rounds ${ROUNDS} --batch ${BATCH}`);
console.log(`load average ${loads.join(' → ')} (1, 5 and 15 minutes)\n`);
console.log(out.join('\n'));
if (incomplete.size > 0) {
  console.log('\nRenders that failed or came back without their text (every part), by count:\n');
  for (const [message, count] of incomplete) console.log(`- ${count} × ${message}`);
}
