// A second Fetchdown server as its own OS process (`fetchdown serve`), for tests of what several processes sharing
// one database must get right. Killed when the test ends, whatever the outcome.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from './mcp-client.js';

const START_TIMEOUT_MS = 120_000; // tsx compiles the sources first: slow on a loaded machine

export async function startServerProcess(
  t: { after(fn: () => Promise<void>): unknown },
  env: Record<string, string>,
): Promise<{ base: string; output(): string }> {
  const child = spawn(process.execPath, ['bin/fetchdown.mjs', 'serve'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      LOG_LEVEL: 'info',
      CACHE_URL: 'memory://',
      ...env,
    },
  });
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    const base = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (base) return { base, output: () => out };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fetchdown serve did not start: ${out}`);
}
