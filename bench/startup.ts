// `npm run bench:startup [-- <baseline.tgz>]`: how long the installed package takes to give its first answers, and the
// CPU it spends on them. This checkout is packed and installed into an empty project (test/helpers/installed-package),
// and so is the baseline tarball when given (another build's `npm run package`), measured in turn with it, run by run.
//   mcp:   spawn `fetchdown mcp` → initialize answered → initialized, tools/list → tools/list answered
//   help:  `fetchdown --help` until it exits
//   fetch: `fetchdown <url>` of a one-paragraph page on 127.0.0.1 until it exits (default cache: SQLite + memory)
// Wall time to the answer, and the process's CPU (user + system) by then: read from /proc at the MCP answer (Linux),
// from bash's `times` for the CLI runs. Medians of ROUNDS runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { installTarball, packAndInstall } from '../test/helpers/installed-package.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const baseline = process.argv[2] ? resolve(process.argv[2]) : undefined;
const work = mkdtempSync(join(tmpdir(), 'fetchdown-startup-'));
mkdirSync(join(work, 'this'));
// Both with this checkout's production dependencies linked, so that only the builds differ.
const variants: Record<string, string> = { this: packAndInstall(join(work, 'this'), { linkDependencies: true }).bin };
if (baseline) variants.baseline = installTarball(baseline, join(work, 'baseline')).bin;

const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    '<!doctype html><html><head><title>Start</title></head><body><article><h1>Start</h1><p>A ' +
      'short page, with a <a href="/next">link</a>.</p></article></body></html>',
  );
});
site.listen(0, '127.0.0.1');
await once(site, 'listening');
const pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
const env = {
  PATH: process.env.PATH ?? '',
  HOME: work,
  DATA_DIR: join(work, 'data'),
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
};

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** utime + stime of a running process, in ms (clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const message = (body: object) => `${JSON.stringify({ jsonrpc: '2.0', ...body })}\n`;

async function timeMcp(bin: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'mcp'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const answers: string[] = [];
  let buffered = '';
  let answered: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      answers.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      answered?.();
    }
  });
  const answer = (n: number) =>
    new Promise<void>((done) => {
      answered = () => answers.length >= n && done();
      answered();
    });
  child.stdin.write(
    message({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  );
  await answer(1);
  child.stdin.write(message({ method: 'notifications/initialized' }));
  child.stdin.write(message({ id: 2, method: 'tools/list' }));
  await answer(2);
  const sample = { wallMs: performance.now() - started, cpuMs: cpuOf(child.pid!) };
  if (!answers[1]!.includes('"fetch_url"')) throw new Error(`no tool list: ${answers[1]}`);
  child.kill('SIGKILL');
  await once(child, 'exit');
  return sample;
}

/** A CLI run to its exit, under bash so `times` reports the CPU its child used. */
let runs = 0;

async function timeCli(bin: string, args: string[]): Promise<Sample> {
  const command = `"$0" "$@" >/dev/null || exit 1; times`;
  // A data directory of its own each run, so every fetch is a first one (no cached copy), as for a new user.
  const runEnv = { ...env, DATA_DIR: join(work, 'data', String(runs++)) };
  const started = performance.now();
  const child = spawn('bash', ['-c', command, process.execPath, bin, ...args], {
    env: runEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`fetchdown ${args.join(' ')} exited with ${code}`);
  // The second line of `times`: the children's user and system time, as 0m1.234s.
  const seconds = [
    ...out
      .trim()
      .split('\n')[1]!
      .matchAll(/(\d+)m([\d.]+)s/g),
  ].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wallMs, cpuMs: (seconds[0]! + seconds[1]!) * 1000 };
}

const MEASURES: Record<string, (bin: string) => Promise<Sample>> = {
  'MCP: spawn → initialize → tools/list answered': timeMcp,
  'CLI: `fetchdown --help`': (bin) => timeCli(bin, ['--help']),
  'CLI: `fetchdown <url>` of a 127.0.0.1 page': (bin) => timeCli(bin, [pageUrl]),
};

const loadBefore = loadavg();
const samples: Record<string, Record<string, Sample[]>> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [measure, run] of Object.entries(MEASURES)) {
    // In turn, and the order swapped each round, so neither variant always runs right after the other.
    const order = round % 2 === 0 ? Object.keys(variants) : Object.keys(variants).reverse();
    for (const variant of order) ((samples[measure] ??= {})[variant] ??= []).push(await run(variants[variant]!));
  }
}
site.close();
rmSync(work, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const names = Object.keys(variants);
console.log(
  `load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} after; ${ROUNDS} rounds, medians`,
);
console.log(
  `| measure | ${names.map((n) => `${n}: wall s | ${n}: CPU s`).join(' | ')} |${baseline ? ' CPU this/baseline |' : ''}`,
);
console.log(`|---|${names.map(() => '---|---').join('|')}|${baseline ? '---|' : ''}`);
for (const [measure, byVariant] of Object.entries(samples)) {
  const cells = names.map((n) => {
    const runs = byVariant[n]!;
    return `${seconds(median(runs.map((s) => s.wallMs)))} | ${seconds(median(runs.map((s) => s.cpuMs)))}`;
  });
  const ratio = baseline
    ? ` ${(median(byVariant.this!.map((s) => s.cpuMs)) / median(byVariant.baseline!.map((s) => s.cpuMs))).toFixed(2)} |`
    : '';
  console.log(`| ${measure} | ${cells.join(' | ')} |${ratio}`);
}
