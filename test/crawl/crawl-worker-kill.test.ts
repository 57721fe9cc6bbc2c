// A crawl worker killed with SIGKILL mid-crawl, on the production engine (BullMQ and the host gate on Redis, the
// crawl in Postgres): its jobs stall, another worker process takes them once their lock runs out, and the crawl
// completes with every page once in its results and billed once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { CACHE_BACKENDS, REDIS_URL } from '../helpers/cache-backends.js';
import {
  allPages,
  crawlSiteAddresses,
  CRAWL_TEST_ENV,
  spawnCrawlWorker,
  startCrawl,
  usageOf,
  waitForCrawl,
} from '../helpers/crawl-api.js';
import { startCrawlSite } from '../helpers/crawl-site.js';
import { DATABASES } from '../helpers/databases.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const PAGES = 40;
/** A dead worker's jobs, page claims and host slots are another's this long after its last renewal. */
const LOCK_MS = 3000;

async function claimedPages(api: TestApp, id: string): Promise<string[]> {
  const rows = await api.services.store.db
    .selectFrom('crawl_pages')
    .select('url')
    .where('crawl_id', '=', id)
    .where('state', '=', 'claimed')
    .execute();
  return rows.map((row) => row.url);
}

test('a worker killed mid-crawl: another takes its pages, and the crawl completes with each page once, billed once', async (t) => {
  const redis = await CACHE_BACKENDS.find((backend) => backend.name === 'redis')!.env();
  const database = await DATABASES.find((backend) => backend.name === 'postgres')!.env(t);
  for (const reason of [redis, database]) if (typeof reason === 'string') return t.skip(reason);
  // Every answer takes 150 ms, so the worker is reading pages when it is killed.
  const site = await startCrawlSite({ pages: PAGES, delayMs: 150 });
  after(() => site.close());
  const env = {
    ...CRAWL_TEST_ENV,
    ...(database as Record<string, string>),
    CACHE_URL: REDIS_URL,
    CRAWL_QUEUE_NAME: `fetchdown-crawl-test-${process.pid}-${randomBytes(4).toString('hex')}`,
    CRAWL_JOB_LOCK_MS: String(LOCK_MS),
    // The killed worker's credit lease, and the charges its journal kept in Redis, are settled this soon.
    CREDIT_LEASE_TTL_MS: '3000',
  };
  const api = await buildTestApp(t, env, { addresses: crawlSiteAddresses() });
  const { apiKey } = await signUp(api);
  await setPlan(api, apiKey, 'pro');
  const id = await startCrawl(api, apiKey, {
    url: `${site.origin()}/docs/1`,
    limit: 100,
    sitemap: 'skip',
    include_paths: ['^/docs/'],
  });

  const first = await spawnCrawlWorker(t, { ...env, USER_AGENT: 'CrawlWorkerA/1.0', CRAWL_CONCURRENCY: '4' });
  await waitForCrawl(api, apiKey, id, (status) => status.counts.fetched >= 5);
  // Killed while it holds pages: claimed in the store, their jobs active in BullMQ.
  const deadline = Date.now() + 30_000;
  while ((await claimedPages(api, id)).length === 0 && Date.now() < deadline) await sleep(10);
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  const held = await claimedPages(api, id);
  const before = await waitForCrawl(api, apiKey, id, () => true);
  assert.ok(before.status === 'running' && before.counts.fetched < PAGES, JSON.stringify(before.counts));
  assert.ok(held.length > 0, 'the killed worker held pages');

  const second = await spawnCrawlWorker(t, { ...env, USER_AGENT: 'CrawlWorkerB/1.0', CRAWL_CONCURRENCY: '4' });
  const crawl = await waitForCrawl(api, apiKey, id);
  assert.equal(crawl.status, 'completed', JSON.stringify(crawl));
  assert.equal(crawl.stop_reason, 'done');
  const pages = await allPages(api, apiKey, id);
  const urls = pages.map((page) => page.url).sort();
  const docs = Array.from({ length: PAGES }, (_, i) => `${site.origin()}/docs/${i + 1}`).sort();
  assert.deepEqual(urls, docs, 'every page once in the results, those the killed worker held included');
  const agents = site.stats().agents;
  assert.ok((agents['CrawlWorkerB/1.0'] ?? 0) > 0, `the second worker read pages: ${JSON.stringify(agents)}`);
  // A page the killed worker was reading may have been asked for again by the second: only those.
  const twice = site.stats().fetchedTwice.map((key) => key.replace(/^site\.test/, site.origin()));
  for (const url of twice) assert.ok(held.includes(url), `${url} fetched twice, not one the killed worker held`);

  // Billed once per page in the results: the second worker's rows once it closes, the killed one's once its lease is
  // reclaimed from the journal it kept in Redis.
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
  const credits = pages.reduce((sum, page) => sum + page.credits, 0);
  assert.equal(crawl.counts.credits, credits);
  const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
  const billed = async () => {
    const row = await api.services.store.db
      .selectFrom('ledger')
      .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('credits_millis').as('millis')])
      .where('account_id', '=', me.body.id as number)
      .where('operation', '=', 'crawl')
      .where('credits_millis', '>', 0)
      .executeTakeFirstOrThrow();
    return { rows: Number(row.rows), millis: Number(row.millis) };
  };
  const settleBy = Date.now() + 60_000;
  while ((await billed()).rows < pages.length && Date.now() < settleBy) await sleep(200);
  // Another sweep of the leases later, still the same: nothing was billed twice.
  await sleep(2 * 3000);
  assert.deepEqual(
    await billed(),
    { rows: pages.length, millis: credits * 1000 },
    'a ledger row per page in the results',
  );
  assert.equal((await usageOf(api, apiKey)).credits_used, credits);
});
