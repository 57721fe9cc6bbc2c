// The crawl engine as production runs it, through the HTTP API: BullMQ and the host gate on Redis, the crawl's rows in
// Postgres, an API process that only queues and reads, and workers of their own (createDeps + workCrawls, as
// `fetchdown worker` runs them) sharing one crawl.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setPlan, signUp } from '../helpers/accounts.js';
import { REDIS_URL, CACHE_BACKENDS } from '../helpers/cache-backends.js';
import {
  allPages,
  crawlSiteAddresses,
  CRAWL_TEST_ENV,
  crawlStatus,
  startCrawl,
  startCrawlWorker,
  usageOf,
  waitForCrawl,
} from '../helpers/crawl-api.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { DATABASES } from '../helpers/databases.js';
import { buildTestApp } from '../helpers/test-app.js';

const HOST_CONCURRENCY = 2;
const sites: CrawlSite[] = [];
after(() => Promise.all(sites.map((site) => site.close())));

/** Redis and Postgres, or why not (a skip; with CI=true a failure, as the backends' helpers decide). */
async function productionEnv(t: { after(fn: () => Promise<void> | void): unknown; skip(reason: string): void }) {
  const redis = await CACHE_BACKENDS.find((backend) => backend.name === 'redis')!.env();
  const database = await DATABASES.find((backend) => backend.name === 'postgres')!.env(t);
  for (const reason of [redis, database]) {
    if (typeof reason === 'string') {
      t.skip(reason);
      return null;
    }
  }
  return {
    ...CRAWL_TEST_ENV,
    ...(database as Record<string, string>),
    CACHE_URL: REDIS_URL,
    // A queue of this test's own: workers of other test files on the same Redis never see its jobs.
    CRAWL_QUEUE_NAME: `fetchdown-crawl-test-${process.pid}-${randomBytes(4).toString('hex')}`,
    CRAWL_HOST_CONCURRENCY: String(HOST_CONCURRENCY),
  };
}

describe('production: BullMQ on Redis, Postgres', () => {
  before(async () => {
    sites.push(await startCrawlSite({ pages: 60, delayMs: 20 }));
  });

  test('the API process only queues: a crawl waits for a worker, then two workers share it, each page once', async (t) => {
    const env = await productionEnv(t);
    if (!env) return;
    const site = sites[0]!;
    const api = await buildTestApp(t, { ...env, CRAWL_CONCURRENCY: '4' }, { addresses: crawlSiteAddresses() });
    const { apiKey } = await signUp(api);
    await setPlan(api, apiKey, 'pro');
    const id = await startCrawl(api, apiKey, { url: `${site.origin()}/`, limit: 200, max_depth: 4 });

    // No worker yet: the crawl stays queued and the site hears nothing (the API process reads no jobs).
    const waiting = await crawlStatus(api, apiKey, id);
    assert.equal(waiting.status, 'queued');
    assert.equal(site.stats().total, 0);

    const workers = [
      await startCrawlWorker(t, { ...env, USER_AGENT: 'CrawlWorkerA/1.0', CRAWL_CONCURRENCY: '3' }),
      await startCrawlWorker(t, { ...env, USER_AGENT: 'CrawlWorkerB/1.0', CRAWL_CONCURRENCY: '3' }),
    ];
    const crawl = await waitForCrawl(api, apiKey, id);
    assert.equal(crawl.status, 'completed', JSON.stringify(crawl));
    assert.equal(crawl.stop_reason, 'done');

    const pages = await allPages(api, apiKey, id);
    const urls = pages.map((page) => page.url);
    assert.equal(new Set(urls).size, urls.length, 'no page twice in the results');
    for (let i = 1; i <= 60; i++) assert.ok(urls.includes(`${site.origin()}/docs/${i}`), `/docs/${i} was read`);
    const stats = site.stats();
    assert.deepEqual(stats.fetchedTwice, [], 'no page fetched twice by the two workers');
    assert.deepEqual(stats.outOfScope, []);
    assert.ok(
      stats.hosts['site.test']!.maxConcurrent <= HOST_CONCURRENCY,
      `at most ${HOST_CONCURRENCY} requests at once to the host across both workers: ${stats.hosts['site.test']!.maxConcurrent}`,
    );
    assert.ok((stats.agents['CrawlWorkerA/1.0'] ?? 0) > 0, `worker A read pages: ${JSON.stringify(stats.agents)}`);
    assert.ok((stats.agents['CrawlWorkerB/1.0'] ?? 0) > 0, `worker B read pages: ${JSON.stringify(stats.agents)}`);

    assert.equal(crawl.counts.fetched, pages.length);
    const credits = pages.reduce((sum, page) => sum + page.credits, 0);
    assert.equal(crawl.counts.credits, credits);
    // A process writes its ledger rows every 200 ms and all of them when it closes.
    await Promise.all(workers.map((worker) => worker.close()));
    assert.equal((await usageOf(api, apiKey)).credits_used, credits, 'each page billed once');
  });
});
