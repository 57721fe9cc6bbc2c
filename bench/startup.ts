// `npm run bench:startup`: how long the installed package takes to give its first answer: the MCP stdio server's
// answer to `initialize`, and the CLI fetching a page from 127.0.0.1 until it exits. Baseline, in turn with it in the
// same run: the same source run through tsx, as bin/fetchdown.mjs did before issue 16. Medians of ROUNDS runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packAndInstall } from '../test/helpers/installed-package.js';

const ROUNDS = 5;
const REPO_ROOT = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'fetchdown-startup-'));
const { bin } = packAndInstall(work);
const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    '<!doctype html><html><head><title>Start</title></head><body><article><h1>Start</h1><p>A ' +
      'short page.</p></article></body></html>',
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
  CACHE_URL: 'memory://',
};

/** The command line of each way to start: the installed bin, or the source through tsx. */
const STARTS = {
  installed: [bin],
  source: ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli.ts')],
};
type Start = keyof typeof STARTS;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/** Milliseconds from spawn to the answer to `initialize` on stdout. */
async function timeMcp(start: Start): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...STARTS[start], 'mcp'], { cwd: REPO_ROOT, env });
  child.stdin.write(INITIALIZE);
  await once(child.stdout, 'data');
  const ms = performance.now() - started;
  child.stdin.end();
  await once(child, 'exit');
  return ms;
}

/** Milliseconds from spawn to the exit of a CLI fetch of the local page. */
async function timeCli(start: Start): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...STARTS[start], pageUrl], { cwd: REPO_ROOT, env, stdio: 'ignore' });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the CLI (${start}) exited with ${code}`);
  return performance.now() - started;
}

const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
const times: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const start of Object.keys(STARTS) as Start[]) {
    (times[`mcp_${start}_ms`] ??= []).push(await timeMcp(start));
    (times[`cli_${start}_ms`] ??= []).push(await timeCli(start));
  }
}
site.close();
rmSync(work, { recursive: true, force: true });
console.log(
  JSON.stringify(
    Object.fromEntries(
      Object.entries(times).map(([name, values]) => [name, { median: median(values), runs: values.map(Math.round) }]),
    ),
    null,
    2,
  ),
);
