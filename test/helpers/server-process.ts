// A second Fetchdown server as its own OS process (`fetchdown serve`, the compiled build), for tests of what several
// processes sharing one database must get right. Killed when the test ends, whatever the outcome; its own DATA_DIR
// (removed afterwards) unless the env names one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTracked, waitForOutput } from './children.js';
import { REPO_ROOT } from './mcp-client.js';

export async function startServerProcess(
  t: { after(fn: () => Promise<void> | void): unknown },
  env: Record<string, string>,
): Promise<{ base: string; pid: number; output(): string }> {
  let dataDir = env.DATA_DIR;
  if (!dataDir) {
    const made = mkdtempSync(join(tmpdir(), 'fetchdown-proc-'));
    t.after(() => rmSync(made, { recursive: true, force: true }));
    dataDir = made;
  }
  const server = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'serve'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CACHE_URL: 'memory://',
      ...env,
      DATA_DIR: dataDir,
    },
  });
  const [, base] = await waitForOutput(server, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return { base: base!, pid: server.child.pid!, output: server.output };
}
