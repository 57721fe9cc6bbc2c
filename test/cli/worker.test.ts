// `fetchdown worker` end to end: with Redis, the API process only queues a crawl and a worker process (spawned as an
// operator runs it) reads it, then stops cleanly on SIGTERM; without Redis it refuses to start, saying why.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { signUp } from '../helpers/accounts.js';
import { buildIfStale } from '../helpers/build.js';
import { CACHE_BACKENDS, REDIS_URL } from '../helpers/cache-backends.js';
import { spawnTracked, waitForOutput } from '../helpers/children.js';
import { crawlStatus, startCrawl, waitForCrawl } from '../helpers/crawl-api.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';

buildIfStale();
const site = await startFixtureSite();
const dir = mkdtempSync(join(tmpdir(), 'fetchdown-worker-'));
after(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(t: { after(fn: () => void): unknown }, env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dir, EXTRACT_WORKERS: '1' };
  return spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'worker'], {
    cwd: REPO_ROOT,
    env: { ...base, ...env },
  });
}

test('with Redis, a worker process reads the crawls the API queues, and stops on SIGTERM', async (t) => {
  const redis = await CACHE_BACKENDS.find((backend) => backend.name === 'redis')!.env();
  if (typeof redis === 'string') return t.skip(redis);
  // The API and the worker share the account store (SQLite under DATA_DIR), the Redis and a queue of this test's own.
  const shared = {
    DATA_DIR: dir,
    CACHE_URL: REDIS_URL,
    CRAWL_QUEUE_NAME: `fetchdown-crawl-test-${process.pid}-${randomBytes(4).toString('hex')}`,
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  };
  const api = await buildTestApp(t, shared);
  const { apiKey } = await signUp(api);
  const id = await startCrawl(api, apiKey, { url: site.url('/links'), limit: 2 });
  await sleep(500);
  assert.equal((await crawlStatus(api, apiKey, id)).status, 'queued', 'the API process reads no crawl');

  const worker = startWorker(t, shared);
  await waitForOutput(worker, /crawl worker ready/);
  const done = await waitForCrawl(api, apiKey, id);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.ok(done.counts.fetched >= 1, 'the worker read the start page');

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
