// `fetchdown worker` end to end: with Redis, the API process only queues a crawl and a worker process (spawned as an
// operator runs it) reads it, then stops cleanly on SIGTERM; without Redis it refuses to start, saying why.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { signUp, withKey } from '../helpers/accounts.js';
import { buildIfStale } from '../helpers/build.js';
import { spawnTracked, waitForOutput } from '../helpers/children.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';
import { startRedis } from '../topology/stack.js';

buildIfStale();
const site = await startFixtureSite();
const dir = mkdtempSync(join(tmpdir(), 'fetchdown-worker-'));
after(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dir };

function startWorker(t: { after(fn: () => void): unknown }, env: Record<string, string>) {
  return spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'worker'], {
    cwd: REPO_ROOT,
    env: { ...ENV, ...env },
  });
}

test('with Redis, a worker process reads the crawls the API queues, and stops on SIGTERM', async (t) => {
  // A Redis of this test's own, so that no other test's worker takes these jobs (or this one theirs).
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    if (process.env.CI === 'true') throw new Error('the worker test needs redis-server in CI');
    return t.skip('redis-server is not installed');
  }
  const redis = await startRedis();
  // The API and the worker share the account store (SQLite under DATA_DIR) and the Redis (jobs, pages, host gate).
  const shared = { DATA_DIR: dir, CACHE_URL: redis.url, FETCH_ALLOW_PRIVATE_NETWORKS: '1' };
  const api = await buildTestApp(t, shared);
  // After the app has closed its connections (hooks run in the order they were added).
  t.after(() => redis.stop());
  const { apiKey } = await signUp(api);
  const started = await api.request('POST', '/crawl', { url: site.url('/links'), limit: 2 }, withKey(apiKey));
  assert.equal(started.status, 202, started.text);
  const status = async () =>
    (await api.request('GET', `/crawl/${started.body.id}`, undefined, withKey(apiKey))).body as {
      status: string;
      counts: { fetched: number };
    };
  await sleep(500);
  assert.equal((await status()).status, 'queued', 'the API process reads no crawl');

  const worker = startWorker(t, shared);
  await waitForOutput(worker, /crawl worker ready/);
  for (let done = await status(); done.status !== 'completed'; done = await status()) {
    assert.ok(['queued', 'running'].includes(done.status), JSON.stringify(done));
    await sleep(100);
  }
  assert.ok((await status()).counts.fetched >= 1, 'the worker read the start page');

  worker.child.kill('SIGTERM');
  const [code] = await once(worker.child, 'exit');
  assert.equal(code, 0, worker.output());
  assert.match(worker.output(), /crawl worker stopping[\s\S]*crawl worker stopped/);
});

test('without Redis, the worker refuses to start and says what to set', async (t) => {
  const worker = startWorker(t, { CACHE_URL: 'memory://' });
  const [code] = await once(worker.child, 'exit');
  assert.equal(code, 1);
  assert.match(worker.output(), /worker reads crawl jobs from Redis: set CACHE_URL to the redis:\/\/ URL/);
});
