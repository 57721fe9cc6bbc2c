// `npm run bench:idle`: what a server costs before anyone uses it, against a bare Fastify app (bench/bare-server.ts,
// bundled by esbuild as the app is, run by node as the app is) measured beside it:
//   start-up:     CPU (user + system, every thread) from spawn to listening, and to SETTLE_MS after (threads loading
//                 their module, the garbage collector's tail)
//   settling:     CPU per second from SETTLE_MS after listening to BENCH_SETTLING_MS (4 min) after, with no request:
//                 V8 collects the start's garbage then, once, in a few bursts (its memory reducer's, ~0.1 s of CPU
//                 each, come about 100 s after the collection before them, twice)
//   idle:         then CPU per second over BENCH_IDLE_MS (1 min) with no request, resident memory (VmRSS) at its end,
//                 and the main thread's wakeups per second over both windows (voluntary context switches: a thread
//                 woken from its wait for events, which load does not add to). All variants idle at once, so the
//                 same load weighs on each.
//   first fetch:  then one uncached POST /fetch of a small page on 127.0.0.1, wall time and CPU: what starting an
//                 extraction thread on demand costs the first caller, against a server that warmed its threads
//                 (EXTRACT_WORKERS_WARM)
// Variants: the bare app, this build (dist/, built if stale) with its defaults, the same with every thread warmed, and
// BENCH_BEFORE's build (a checkout with its own dist/) when given. Start-ups one at a time, the order turned each
// round. Min / median / max over BENCH_ROUNDS (3); the load average before and after.
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { buildIfStale } from '../test/helpers/build.js';
import { killAll, sleep, startChild, type Child } from '../test/topology/children.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SETTLE_MS = 10_000;
const SETTLING_MS = Number(process.env.BENCH_SETTLING_MS ?? 240_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);
const BEFORE = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined;
const ROOT = resolve(import.meta.dirname, '..');
/** Linux's clock ticks of /proc/<pid>/stat (USER_HZ), in ms. */
const TICK_MS = 10;
const MB = 1024 * 1024;

buildIfStale();
const work = mkdtempSync(join(tmpdir(), 'fetchdown-idle-'));
const bareBundle = join(work, 'bare-server.mjs');
await build({
  entryPoints: [join(ROOT, 'bench', 'bare-server.ts')],
  outfile: bareBundle,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifyWhitespace: true,
  minifySyntax: true,
  banner: {
    js: "import { createRequire as __fdRequire } from 'node:module';const require=__fdRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    '<!doctype html><html><head><title>Idle</title></head><body><article><h1>Idle</h1><p>A short page ' +
      'that the first fetch of a server reads, with a <a href="/next">link</a>.</p></article></body></html>',
  );
});
site.listen(0, '127.0.0.1');
await once(site, 'listening');
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

interface Variant {
  name: string;
  command: string[];
  env: Record<string, string>;
  /** Printed once the server listens: its address. */
  listening: RegExp;
  /** Whether it serves POST /fetch of a page (the bare app answers `{}`). */
  fetches: boolean;
}

const cores = String(availableParallelism());
const appEnv = (dir: string) => ({
  LOG_LEVEL: 'info',
  DATA_DIR: dir,
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  ROBOTS_TXT: 'ignore',
});
const APP_LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const variants = (round: number): Variant[] => [
  {
    name: 'bare Fastify',
    command: [bareBundle],
    env: {},
    listening: /"bare":"(http:\/\/127\.0\.0\.1:\d+)"/,
    fetches: false,
  },
  {
    name: 'this build',
    command: [join(ROOT, 'dist', 'main.js')],
    env: appEnv(join(work, `this-${round}`)),
    listening: APP_LISTENING,
    fetches: true,
  },
  {
    name: `threads warm (EXTRACT_WORKERS_WARM=${cores})`,
    command: [join(ROOT, 'dist', 'main.js')],
    env: { ...appEnv(join(work, `warm-${round}`)), EXTRACT_WORKERS_WARM: cores },
    listening: APP_LISTENING,
    fetches: true,
  },
  ...(BEFORE
    ? [
        {
          name: 'BENCH_BEFORE',
          command: [join(BEFORE, 'dist', 'main.js')],
          env: appEnv(join(work, `before-${round}`)),
          listening: APP_LISTENING,
          fetches: true,
        },
      ]
    : []),
];

/** The process and its descendants (a browser, were one started), from the parent ids in /proc. */
function family(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const members = [pid];
  for (let i = 0; i < members.length; i++)
    for (const [child, parent] of parents) if (parent === members[i]) members.push(child);
  return members;
}

interface Reading {
  cpuMs: number;
  rss: number;
  wakeups: number;
  at: number;
}

/** CPU ms of the process and its descendants (every thread), resident memory, the main thread's wakeups. */
function reading(child: Child): Reading {
  if (child.hasExited()) throw new Error(`${child.name} exited:\n${child.output()}`);
  const pid = child.process.pid!;
  let cpuMs = 0;
  let rss = 0;
  for (const member of family(pid)) {
    try {
      const stat = readFileSync(`/proc/${member}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpuMs += (Number(stat[11]) + Number(stat[12])) * TICK_MS;
      rss += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch (error) {
      if (member === pid) throw error; // a descendant may end meanwhile
    }
  }
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { cpuMs, rss, wakeups: Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)![1]), at: performance.now() };
}

async function waitForLine(child: Child, pattern: RegExp): Promise<string> {
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match[1]!;
    if (child.hasExited()) throw new Error(`${child.name} exited before listening:\n${child.output()}`);
    await sleep(5);
  }
}

type Measure =
  | 'wall to listening (ms)'
  | 'start-up CPU to listening (ms)'
  | 'start-up CPU to 10 s after (ms)'
  | 'settling: CPU after start-up, idle (ms/s)'
  | 'idle CPU once settled (ms/s)'
  | 'idle main-thread wakeups (/s)'
  | 'idle RSS (MB)'
  | 'first uncached fetch, wall (ms)'
  | 'first uncached fetch, CPU (ms)';
const samples = new Map<string, Map<Measure, number[]>>();
const record = (variant: string, measure: Measure, value: number) => {
  const byMeasure = samples.get(variant) ?? samples.set(variant, new Map()).get(variant)!;
  (byMeasure.get(measure) ?? byMeasure.set(measure, []).get(measure)!).push(value);
};
const rate = (from: Reading, to: Reading, of: 'cpuMs' | 'wakeups') => (to[of] - from[of]) / ((to.at - from.at) / 1000);

process.on('exit', () => void killAll());
const loadBefore = loadavg();
for (let round = 0; round < ROUNDS; round++) {
  const all = variants(round);
  const order = all.map((_, i) => all[(i + round) % all.length]!);
  const running: { variant: Variant; child: Child; base: string; listening: number; settled: Reading }[] = [];
  for (const variant of order) {
    const started = performance.now();
    const child = startChild(variant.name, process.execPath, variant.command, {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: work, PORT: '0', HOST: '127.0.0.1', ...variant.env },
    });
    const base = await waitForLine(child, variant.listening);
    const listening = performance.now();
    record(variant.name, 'wall to listening (ms)', listening - started);
    record(variant.name, 'start-up CPU to listening (ms)', reading(child).cpuMs);
    await sleep(SETTLE_MS);
    const settled = reading(child);
    record(variant.name, 'start-up CPU to 10 s after (ms)', settled.cpuMs);
    running.push({ variant, child, base, listening, settled });
  }
  // Each variant's windows from its own start; they overlap, so all idle under the same load.
  await Promise.all(
    running.map(async ({ variant, child, listening, settled }) => {
      await sleep(listening + SETTLING_MS - performance.now());
      const before = reading(child);
      await sleep(IDLE_MS);
      const after = reading(child);
      record(variant.name, 'settling: CPU after start-up, idle (ms/s)', rate(settled, before, 'cpuMs'));
      record(variant.name, 'idle CPU once settled (ms/s)', rate(before, after, 'cpuMs'));
      record(variant.name, 'idle main-thread wakeups (/s)', rate(settled, after, 'wakeups'));
      record(variant.name, 'idle RSS (MB)', after.rss / MB);
    }),
  );
  for (const { variant, child, base } of running.filter((r) => r.variant.fetches)) {
    const cpu = reading(child).cpuMs;
    const started = performance.now();
    const res = await fetch(`${base}/fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${siteUrl}/page-${round}` }),
    });
    if (res.status !== 200) throw new Error(`${variant.name}: POST /fetch answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    record(variant.name, 'first uncached fetch, wall (ms)', performance.now() - started);
    record(variant.name, 'first uncached fetch, CPU (ms)', reading(child).cpuMs - cpu);
  }
  await killAll();
}
site.close();
rmSync(work, { recursive: true, force: true });

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const digits = (value: number) => (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
const spread = (values: number[] | undefined) => {
  if (!values) return '—';
  const [min, mid, max] = [sorted(values)[0]!, median(values), sorted(values).at(-1)!];
  return `${min.toFixed(digits(min))} / **${mid.toFixed(digits(mid))}** / ${max.toFixed(digits(max))}`;
};
const names = [...samples.keys()];
const bare = names[0]!;
console.log(
  `load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} after; ${ROUNDS} rounds (min / median / max); settling to ${SETTLING_MS / 1000} s, idle window ${
    IDLE_MS / 1000
  } s\n`,
);
console.log(
  `| measure | ${names.join(' | ')} | ${names
    .slice(1)
    .map((n) => `${n} ÷ bare (medians)`)
    .join(' | ')} |`,
);
console.log(
  `|---|${names.map(() => '---|').join('')}${names
    .slice(1)
    .map(() => '---|')
    .join('')}`,
);
const measures = [...samples.get(names[1]!)!.keys()];
for (const measure of measures) {
  const cells = names.map((name) => spread(samples.get(name)!.get(measure)));
  const base = samples.get(bare)!.get(measure);
  const ratios = names.slice(1).map((name) => {
    const values = samples.get(name)!.get(measure);
    if (!base || !values || median(base) === 0) return '—';
    return `${(median(values) / median(base)).toFixed(2)}×`;
  });
  console.log(`| ${measure} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
}
