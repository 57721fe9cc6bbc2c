// The crawl engine on the embedded default (SQLite, the in-process SQLite queue) through the HTTP API, against the
// crawl site: a path with endless query strings is a trap, a cancelled crawl starts nothing more, a crawl that runs out
// of credits stops billed for exactly its results, and a crawl survives a restart of the server and a SIGKILL of the
// process reading it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import {
  allPages,
  crawlSiteAddresses,
  CRAWL_TEST_ENV,
  isActive,
  spawnCrawlWorker,
  startCrawl,
  usageOf,
  waitForCrawl,
} from '../helpers/crawl-api.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const QUERY_VARIANTS = 5;
const CRAWL_CONCURRENCY = 4;
const HOST_CONCURRENCY = 2;

let api: TestApp;
const sites: CrawlSite[] = [];

/** A crawl site of the test's own: its URLs are new to the app's cache, and its counters count this test alone. */
async function freshSite(options: Parameters<typeof startCrawlSite>[0] = {}) {
  const site = await startCrawlSite(options);
  sites.push(site);
  return site;
}

before(async () => {
  api = await buildTestApp(
    { after },
    {
      ...CRAWL_TEST_ENV,
      CRAWL_CONCURRENCY: String(CRAWL_CONCURRENCY),
      CRAWL_HOST_CONCURRENCY: String(HOST_CONCURRENCY),
      CRAWL_MAX_QUERY_VARIANTS: String(QUERY_VARIANTS),
      STARTER_MONTHLY_CREDITS: '5',
    },
    { addresses: crawlSiteAddresses() },
  );
});
after(() => Promise.all(sites.map((site) => site.close())));

/** Pages of the crawl not finished yet, from the store: none left means no page is being read either. */
async function unfinishedPages(app: TestApp, id: string): Promise<number> {
  const row = await app.services.store.db
    .selectFrom('crawl_pages')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('crawl_id', '=', id)
    .where('state', 'in', ['queued', 'claimed'])
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Waits until the crawl has claimed pages, read from the SQLite file of the process that holds them; their URLs. */
async function waitForClaims(dataDir: string, id: string): Promise<string[]> {
  const file = new Database(join(dataDir, 'accounts.sqlite'), { readonly: true });
  try {
    let held: string[] = [];
    await waitUntil('pages claimed', async () => {
      held = file
        .prepare("select url from crawl_pages where crawl_id = ? and state = 'claimed'")
        .pluck()
        .all(id) as string[];
      return held.length > 0;
    });
    return held;
  } finally {
    file.close();
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await sleep(50);
  }
}

const sumCredits = (pages: { credits: number }[]) =>
  Math.round(pages.reduce((sum, page) => sum + page.credits, 0) * 1000) / 1000;

describe('traps', () => {
  test('a path with endless query strings is read for at most CRAWL_MAX_QUERY_VARIANTS of them', async () => {
    const site = await freshSite();
    const { apiKey } = await signUp(api);
    await setPlan(api, apiKey, 'pro');
    const id = await startCrawl(api, apiKey, { url: `${site.origin()}/`, limit: 500, max_depth: 40 });
    const crawl = await waitForCrawl(api, apiKey, id);
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.stop_reason, 'done', 'the traps ran out, not the page limit');
    const urls = (await allPages(api, apiKey, id)).map((page) => page.url);
    const variants = (path: string) => urls.filter((url) => url.startsWith(`${site.origin()}${path}?`));
    // /search?q=n links to ?q=n+1 and to ?q=n&page=2: both are variants of /search; /calendar?month=n has its own.
    assert.equal(variants('/search').length, QUERY_VARIANTS, variants('/search').join(' '));
    assert.equal(variants('/calendar').length, QUERY_VARIANTS, variants('/calendar').join(' '));
    assert.ok(urls.includes(`${site.origin()}/docs/30`), 'the rest of the site is read');
    const requested = Object.keys(site.stats().requests);
    assert.equal(requested.filter((url) => url.startsWith('site.test/search?')).length, QUERY_VARIANTS);
    const rows = await api.services.store.db
      .selectFrom('crawl_pages')
      .select('url')
      .where('crawl_id', '=', id)
      .execute();
    assert.equal(rows.filter((row) => row.url.startsWith(`${site.origin()}/search?`)).length, QUERY_VARIANTS);
  });
});

describe('stopping', () => {
  test('a cancelled crawl starts no page afterwards, and is billed for exactly the pages in its results', async () => {
    // Every answer takes 100 ms: a crawl of 200 pages is well under way, not over, when it is cancelled.
    const site = await freshSite({ pages: 200, delayMs: 100 });
    const { apiKey } = await signUp(api);
    await setPlan(api, apiKey, 'pro');
    const id = await startCrawl(api, apiKey, { url: `${site.origin()}/docs/1`, limit: 200, sitemap: 'skip' });
    await waitForCrawl(api, apiKey, id, (status) => status.counts.fetched >= 3);

    const cancelled = await api.request('DELETE', `/crawl/${id}`, undefined, withKey(apiKey));
    const atCancel = site.stats().total;
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.stop_reason, 'cancelled');

    // The pages being read finish; the queued ones are skipped as their jobs come, and none is added.
    await waitUntil('every page of the cancelled crawl finished', async () => (await unfinishedPages(api, id)) === 0);
    const settled = site.stats().total;
    // Only a page that had its claim, its host's slot and a last look at the crawl before the cancel may still have
    // reached the site after it: at most one per slot of the host.
    assert.ok(settled - atCancel <= HOST_CONCURRENCY, `${settled - atCancel} requests after the cancel`);
    await sleep(1000);
    assert.equal(site.stats().total, settled, 'nothing reached the site once the pages in flight were done');

    const crawl = await waitForCrawl(api, apiKey, id, () => true);
    assert.equal(crawl.status, 'cancelled');
    const pages = await allPages(api, apiKey, id);
    assert.ok(pages.length >= 3 && pages.length < 200, `${pages.length} pages`);
    assert.equal(new Set(pages.map((page) => page.url)).size, pages.length, 'no page twice in the results');
    assert.equal(crawl.counts.fetched, pages.length);
    assert.equal(crawl.counts.credits, sumCredits(pages));
    const usage = await usageOf(api, apiKey);
    assert.equal(usage.credits_used, sumCredits(pages), 'charged for the pages in the results, nothing more');
    assert.equal(usage.by_operation.crawl?.credits, sumCredits(pages));
    assert.deepEqual(site.stats().fetchedTwice, []);
  });

  test('a crawl that runs out of credits stops, billed for exactly its results and never overdrawn', async () => {
    const site = await freshSite({ pages: 60 });
    const { apiKey } = await signUp(api);
    // 5 credits a month, counted in credits; each page of the docs is 1 (the html route).
    await setPlan(api, apiKey, 'starter');
    const id = await startCrawl(api, apiKey, { url: `${site.origin()}/docs/1`, limit: 60, sitemap: 'skip' });
    const crawl = await waitForCrawl(api, apiKey, id);
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.stop_reason, 'credits_exhausted');
    const pages = await allPages(api, apiKey, id);
    // Each page held its credit before it was read: at most 5 pages. Fewer when one of the 5 held failed (a loaded
    // machine's timeout or 503) and gave its credit back after the next page was turned away; the money below is exact
    // either way.
    assert.ok(pages.length >= 1 && pages.length + crawl.counts.failed <= 5, `${pages.length} pages for 5 credits`);
    assert.ok(pages.every((page) => page.credits === 1));
    assert.equal(new Set(pages.map((page) => page.url)).size, pages.length);
    assert.equal(crawl.counts.fetched, pages.length);
    assert.equal(crawl.counts.credits, pages.length);
    const usage = await usageOf(api, apiKey);
    assert.equal(usage.credits_used, pages.length);
    assert.equal(usage.by_operation.crawl?.credits, pages.length);
    assert.deepEqual(
      [usage.allowance.used_credits, usage.allowance.remaining_credits, usage.balance_credits],
      [pages.length, 5 - pages.length, 0],
      'never overdrawn',
    );
    // A completed crawl has no page in flight, so the figures above are final: nothing more is read or charged.
    assert.equal(await unfinishedPages(api, id), 0);
    const settled = site.stats().total;
    await sleep(500);
    assert.equal(site.stats().total, settled);
    assert.equal((await usageOf(api, apiKey)).credits_used, pages.length);
    assert.deepEqual((await waitForCrawl(api, apiKey, id)).counts, crawl.counts);
  });
});

describe('restarts', () => {
  test('a crawl under way when the embedded server stops goes on when it starts again, each page read once', async (t) => {
    const site = await freshSite({ pages: 40, delayMs: 100 });
    const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-crawl-restart-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    // The embedded default as `npm start` runs it: accounts, the crawl queue and the cache (the crawl's results) in
    // SQLite files under DATA_DIR.
    const env = { ...CRAWL_TEST_ENV, DATA_DIR: dataDir, CACHE_URL: '', CRAWL_CONCURRENCY: String(CRAWL_CONCURRENCY) };
    const first = await buildTestApp(t, env, { addresses: crawlSiteAddresses() });
    const { apiKey } = await signUp(first);
    await setPlan(first, apiKey, 'pro');
    const id = await startCrawl(first, apiKey, {
      url: `${site.origin()}/docs/1`,
      limit: 100,
      sitemap: 'skip',
      include_paths: ['^/docs/'],
    });
    await waitForCrawl(first, apiKey, id, (status) => status.counts.fetched >= 3);
    await first.close();
    const readBefore = site.stats().total;

    const second = await buildTestApp(t, env, { addresses: crawlSiteAddresses() });
    const stopped = await waitForCrawl(second, apiKey, id, () => true);
    assert.ok(stopped.counts.fetched < 40, `the first server stopped mid-crawl (${stopped.counts.fetched} read)`);
    const crawl = await waitForCrawl(second, apiKey, id);
    assert.equal(crawl.status, 'completed', JSON.stringify(crawl));
    assert.equal(crawl.stop_reason, 'done');
    assert.ok(site.stats().total > readBefore, 'the second server read pages');
    const pages = await allPages(second, apiKey, id);
    const urls = pages.map((page) => page.url).sort();
    const docs = Array.from({ length: 40 }, (_, i) => `${site.origin()}/docs/${i + 1}`).sort();
    assert.deepEqual(urls, docs, 'every page once, those read before the restart included');
    assert.deepEqual(site.stats().fetchedTwice, []);
    assert.equal(crawl.counts.credits, sumCredits(pages));
    assert.equal((await usageOf(second, apiKey)).credits_used, sumCredits(pages));
    assert.ok(!isActive(crawl));
  });

  test('a crawl whose embedded process was killed mid-page goes on when the server starts again', async (t) => {
    const site = await freshSite({ pages: 40, delayMs: 150 });
    const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-crawl-kill-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    // A page claim lasts 10 minutes: the pages the killed process held come back only because the next start
    // releases its claims (one process owns the embedded default's files), not because they ran out.
    const env = {
      ...CRAWL_TEST_ENV,
      DATA_DIR: dataDir,
      CACHE_URL: '',
      CRAWL_JOB_LOCK_MS: '600000',
      CREDIT_LEASE_TTL_MS: '3000',
    };
    const first = await buildTestApp(t, env, { addresses: crawlSiteAddresses() });
    const { apiKey } = await signUp(first);
    await setPlan(first, apiKey, 'pro');
    const id = await startCrawl(first, apiKey, {
      url: `${site.origin()}/docs/1`,
      limit: 100,
      sitemap: 'skip',
      include_paths: ['^/docs/'],
    });
    await first.close();

    // The crawl's jobs read by a process of their own, killed while it holds pages.
    const reader = await spawnCrawlWorker(t, { ...env, USER_AGENT: 'KilledReader/1.0', CRAWL_CONCURRENCY: '4' });
    await waitUntil('the process reads pages', async () => (site.stats().agents['KilledReader/1.0'] ?? 0) > 0);
    const held = await waitForClaims(dataDir, id);
    reader.child.kill('SIGKILL');
    await once(reader.child, 'exit');

    const second = await buildTestApp(t, env, { addresses: crawlSiteAddresses() });
    const crawl = await waitForCrawl(second, apiKey, id);
    assert.equal(crawl.status, 'completed', JSON.stringify(crawl));
    assert.equal(crawl.stop_reason, 'done');
    const pages = await allPages(second, apiKey, id);
    const urls = pages.map((page) => page.url).sort();
    const docs = Array.from({ length: 40 }, (_, i) => `${site.origin()}/docs/${i + 1}`).sort();
    assert.deepEqual(urls, docs, 'every page once, those the killed process held included');
    // Only a page the killed process was reading may have been asked for again.
    const twice = site.stats().fetchedTwice.map((key) => key.replace(/^site\.test/, site.origin()));
    for (const url of twice) assert.ok(held.includes(url), `${url} fetched twice, not one the killed process held`);
    // Its charges were kept in its spend journal under DATA_DIR, which the next process settles.
    await waitUntil('the ledger has every page', async () => (await usageOf(second, apiKey)).credits_used >= 40);
    assert.equal((await usageOf(second, apiKey)).credits_used, sumCredits(pages));
  });
});
