// `npm run bench:thread-cpu -- <other checkout>`: the CPU that extraction threads spend per page, this checkout's
// pool against another checkout's (a git worktree with its own `npm ci`), with no HTTP, cache or ledger around them,
// so that a change to the threads themselves shows above the noise of a whole fetch. Each side is a pool of two
// threads converting the 181 benchmark pages as a fetch does (the `html` task: content, Markdown, text, token
// counts), two at once; the sides alternate pass by pass, the order flipped every round, after WARMUP_PASSES each.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConversionOptions, Conversions } from '../src/fetchers/conversions.js';
import { loadBenchmarkPages } from './benchmark-pages.js';
import { loadAverage, spread } from './processes.js';
import { ratios } from './serving.js';
import { loadConfig } from '../src/config.js';
import { documentOptions } from '../src/fetchers/index.js';

const other = process.argv[2];
if (!other) throw new Error('usage: npm run bench:thread-cpu -- <path of the other checkout>');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP_PASSES = Number(process.env.BENCH_WARMUP_PASSES ?? 8);
const PASSES = 4; // a round's passes on each side
const OPTIONS = {
  workers: 2,
  queueMax: 1000,
  timeoutMs: 60_000,
  wallTimeoutMs: 120_000,
  maxTasks: 1e6,
  heapMb: 1024,
  nice: 0,
  documents: documentOptions(loadConfig({})),
};

type Make = (options: ConversionOptions) => Conversions;
async function load(root: string): Promise<Make> {
  const module = pathToFileURL(resolve(root, 'src/fetchers/conversions.ts')).href;
  return ((await import(module)) as { createConversions: Make }).createConversions;
}

const { pages } = loadBenchmarkPages();
const responses = pages.map((page) => {
  const body = page.raw;
  const url = new URL(page.url);
  const headers = { 'content-type': 'text/html; charset=utf-8' };
  return { url, status: 200, headers, body, bodyTruncated: false, redirects: 0, bytes: body.length, wireBytes: 0 };
});

async function pass(conversions: Conversions): Promise<void> {
  for (let i = 0; i < responses.length; i += 2)
    await Promise.all(responses.slice(i, i + 2).map((response) => conversions.html(response)));
}

/** CPU (all of this process's threads) and wall time per page. */
interface Figures {
  cpuMs: number;
  wallMs: number;
}

/** One side's figures over PASSES passes. */
async function measure(conversions: Conversions): Promise<Figures> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < PASSES; i++) await pass(conversions);
  const used = process.cpuUsage(cpu);
  const n = PASSES * responses.length;
  return { cpuMs: (used.user + used.system) / 1000 / n, wallMs: (performance.now() - start) / n };
}

const here = (await load('.'))(OPTIONS);
const there = (await load(other))(OPTIONS);
console.log(`load average before: ${loadAverage()}`);
for (const conversions of [here, there]) for (let i = 0; i < WARMUP_PASSES; i++) await pass(conversions);
const runs = { here: [] as Figures[], there: [] as Figures[] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? (['here', 'there'] as const) : (['there', 'here'] as const);
  for (const side of order) runs[side].push(await measure(side === 'here' ? here : there));
  console.error(
    `round ${round + 1}: CPU/page ${runs.here.at(-1)!.cpuMs.toFixed(2)} against ` +
      `${runs.there.at(-1)!.cpuMs.toFixed(2)} ms; load ${loadAverage()}`,
  );
}
await Promise.all([here.close(), there.close()]);

console.log(`\n${ROUNDS} rounds of ${PASSES} passes of ${responses.length} pages a side; min / median / max\n`);
console.log(`| measure | this checkout | ${other} | ratio |\n|---|---|---|---|`);
for (const [name, of] of [
  ['CPU per page, ms', (x: Figures) => x.cpuMs],
  ['wall time per page, ms (two at once)', (x: Figures) => x.wallMs],
] as const) {
  const [a, b] = [runs.here.map(of), runs.there.map(of)];
  console.log(`| ${name} | ${spread(a)} | ${spread(b)} | ${spread(ratios(runs.here, runs.there, of))}× |`);
}
console.log(`\nload average after: ${loadAverage()}`);
