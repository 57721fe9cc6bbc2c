// Crawls through the HTTP API on the embedded default (SQLite, the in-process SQLite queue) against the crawl site:
// scope, depth, robots, dedupe, canonical links, SSRF, cancel, credits running out, another account's crawl, bad
// input and webhooks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDns } from '../helpers/test-dns.js';
import { CRAWL_SITE_RECORDS, startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { verifyWebhook } from '../../src/crawl/webhook-signature.js';

let site: CrawlSite;
let api: TestApp;
let key: string;

before(async () => {
  site = await startCrawlSite({ pages: 30 });
  api = await buildTestApp(
    { after },
    { FETCH_ALLOW_PRIVATE_NETWORKS: '0', CRAWL_CONCURRENCY: '4' },
    { addresses: { resolveHost: createTestDns(CRAWL_SITE_RECORDS), isBlocked: (ip) => ip !== '127.0.0.1' } },
  );
  key = (await signUp(api)).apiKey;
  await setPlan(api, key, 'pro');
});
after(() => site.close());

async function crawlUntilDone(body: object, apiKey = key) {
  const started = await api.request('POST', '/crawl', body, withKey(apiKey));
  assert.equal(started.status, 202, started.text);
  for (;;) {
    const status = await api.request('GET', `/crawl/${started.body.id}?limit=100`, undefined, withKey(apiKey));
    assert.equal(status.status, 200, status.text);
    if (!['queued', 'running'].includes(status.body.status)) return { id: started.body.id as string, ...status.body };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a crawl reads the docs in scope once each, follows robots.txt and the guard, and bills each page', async () => {
  site.reset();
  const crawl = await crawlUntilDone({ url: `${site.origin()}/`, limit: 100, max_depth: 3 });
  assert.equal(crawl.status, 'completed');
  assert.equal(crawl.stop_reason, 'done');
  const urls = crawl.pages.map((page: { url: string }) => page.url);
  assert.ok(
    urls.some((url: string) => url.endsWith('/docs/1')),
    urls.join(' '),
  );
  assert.ok(crawl.pages.some((page: { markdown: string }) => page.markdown.includes('PAGE-2-MARKER')));
  assert.equal(new Set(urls).size, urls.length, 'no page twice in the results');
  assert.ok(!urls.some((url: string) => url.includes('/admin/')), 'robots.txt disallows /admin/');
  assert.ok(
    !urls.some((url: string) => url.includes('/dup/')),
    'a canonical duplicate is read under its canonical URL',
  );
  assert.deepEqual(site.stats().fetchedTwice, []);
  assert.deepEqual(site.stats().outOfScope, [], 'no request left the site or reached a private address');
  assert.ok(site.stats().hosts['site.test']!.maxConcurrent <= 2, 'the per-host limit held');
  assert.ok(crawl.counts.skipped_robots >= 1);
  assert.ok(crawl.counts.blocked >= 1, 'links and redirects into private ranges are refused and counted');
  assert.equal(crawl.counts.fetched, crawl.pages.length);
  assert.equal(
    crawl.counts.credits,
    crawl.pages.reduce((sum: number, page: { credits: number }) => sum + page.credits, 0),
  );
  const errors = await api.request('GET', `/crawl/${crawl.id}/errors?limit=100`, undefined, withKey(key));
  assert.equal(errors.status, 200);
  assert.ok(errors.body.errors.some((error: { code: string }) => error.code === 'blocked_url'));
});

test("another account's crawl is 404, an anonymous caller cannot crawl, and bad input names the field", async () => {
  const crawl = await crawlUntilDone({ url: `${site.origin()}/docs/1`, limit: 1, sitemap: 'skip' });
  const other = (await signUp(api)).apiKey;
  assert.equal((await api.request('GET', `/crawl/${crawl.id}`, undefined, withKey(other))).status, 404);
  assert.equal((await api.request('DELETE', `/crawl/${crawl.id}`, undefined, withKey(other))).status, 404);
  const anonymous = await api.post('/crawl', { url: `${site.origin()}/` });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, 'key_required');
  const bad = await api.request(
    'POST',
    '/crawl',
    { url: `${site.origin()}/`, include_paths: ['(a+)+$'] },
    withKey(key),
  );
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.detail[0].loc, ['body', 'include_paths', 0]);
  const hook = await api.request(
    'POST',
    '/crawl',
    { url: `${site.origin()}/`, webhook: { url: `http://private.test:${site.port}/hook` } },
    withKey(key),
  );
  assert.equal(hook.status, 422, hook.text);
  assert.deepEqual(hook.body.detail[0].loc, ['body', 'webhook', 'url']);
  const big = await api.request('POST', '/crawl', { url: `${site.origin()}/`, limit: 60_000 }, withKey(key));
  assert.equal(big.status, 422);
  assert.deepEqual(big.body.detail[0].loc, ['body', 'limit']);
});

test('a crawl of a host that does not answer ends failed with the reason', async () => {
  const crawl = await crawlUntilDone({ url: 'http://nowhere.test/', limit: 5 });
  assert.equal(crawl.status, 'failed');
  assert.equal(crawl.stop_reason, 'start_failed');
  assert.match(crawl.error, /start page could not be read/);
});

test('map lists the sitemap, llms.txt and page links in scope, ranked by a search', async () => {
  const res = await api.request('POST', '/map', { url: `${site.origin()}/`, limit: 500 }, withKey(key));
  assert.equal(res.status, 200, res.text);
  const sources = new Set(res.body.links.map((link: { source: string }) => link.source));
  assert.deepEqual([...sources].sort(), ['llms.txt', 'page', 'sitemap'].filter((s) => sources.has(s)).sort());
  assert.ok(sources.has('sitemap') && sources.has('page'));
  assert.ok(res.body.links.every((link: { url: string }) => link.url.startsWith(site.origin())));
  assert.equal(res.body.credits, 1);
  const ranked = await api.request('POST', '/map', { url: `${site.origin()}/`, search: 'calendar' }, withKey(key));
  assert.match(ranked.body.links[0].url, /calendar/);
});

test('webhooks are signed, carry an event id, and are retried', async () => {
  const receiver = await startWebhookReceiver({ failFirst: 1 });
  after(() => receiver.close());
  const secret = 'a-secret-of-our-own-1234';
  const crawl = await crawlUntilDone({
    url: `${site.origin()}/docs/1`,
    limit: 2,
    sitemap: 'skip',
    webhook: { url: receiver.url, secret, events: ['crawl.started', 'crawl.completed'] },
  });
  const idOf = (d: { headers: Record<string, unknown> }) => d.headers['fetchdown-event-id'];
  const deliveries = await receiver.waitFor(
    (all) =>
      all.some((d) => (d.json as { type: string }).type === 'crawl.completed' && d.status === 200) &&
      all.filter((d) => idOf(d) === idOf(all[0]!)).length >= 2,
  );
  for (const delivery of deliveries)
    assert.ok(verifyWebhook(secret, delivery.body, String(delivery.headers['fetchdown-signature']), Date.now() / 1000));
  const first = deliveries[0]!;
  assert.equal(first.status, 500, 'the first delivery was refused');
  const retried = deliveries.filter((d) => idOf(d) === idOf(first));
  assert.ok(retried.length >= 2, 'the refused event came again with the same id');
  assert.equal((first.json as { crawl_id: string }).crawl_id, crawl.id);
});

test('a crawl and its pages go once their retention has passed (an injected clock)', async (t) => {
  let now = Date.now();
  const app = await buildTestApp(
    t,
    { CRAWL_RETENTION_HOURS: '24' },
    { clock: { now: () => now }, addresses: { resolveHost: createTestDns(CRAWL_SITE_RECORDS) } },
  );
  const { apiKey } = await signUp(app);
  // The injected clock stands still, so the rate limit's window never passes: the polls below need a paid plan's.
  await setPlan(app, apiKey, 'pro');
  const start = async () => {
    const res = await app.request(
      'POST',
      '/crawl',
      { url: `${site.origin()}/docs/1`, limit: 1, sitemap: 'skip' },
      withKey(apiKey),
    );
    assert.equal(res.status, 202, res.text);
    return res.body.id as string;
  };
  const first = await start();
  for (;;) {
    const status = await app.request('GET', `/crawl/${first}`, undefined, withKey(apiKey));
    assert.equal(status.status, 200);
    if (status.body.status === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  now += 23 * 3_600_000;
  await start();
  assert.equal((await app.request('GET', `/crawl/${first}`, undefined, withKey(apiKey))).status, 200, 'kept 23 h');
  now += 2 * 3_600_000;
  await start();
  assert.equal(
    (await app.request('GET', `/crawl/${first}`, undefined, withKey(apiKey))).status,
    404,
    'gone after 24 h',
  );
});

test("an account's kept crawls stop at CRAWL_ACCOUNT_MAX_BYTES, and new ones wait for the old to expire", async (t) => {
  let now = Date.now();
  const app = await buildTestApp(
    t,
    { CRAWL_RETENTION_HOURS: '24', CRAWL_ACCOUNT_MAX_BYTES: '1500', CRAWL_CONCURRENCY: '1' },
    { clock: { now: () => now }, addresses: { resolveHost: createTestDns(CRAWL_SITE_RECORDS) } },
  );
  const { apiKey } = await signUp(app);
  await setPlan(app, apiKey, 'pro');
  const start = () =>
    app.request('POST', '/crawl', { url: `${site.origin()}/docs/1`, limit: 30, sitemap: 'skip' }, withKey(apiKey));
  const first = await start();
  assert.equal(first.status, 202, first.text);
  let crawl;
  for (;;) {
    crawl = await app.request('GET', `/crawl/${first.body.id}?limit=100`, undefined, withKey(apiKey));
    if (!['queued', 'running'].includes(crawl.body.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.equal(crawl.body.stop_reason, 'account_byte_cap', crawl.text);
  const kept = crawl.body.pages.reduce((sum: number, page: { markdown: string }) => sum + page.markdown.length, 0);
  assert.ok(kept >= 1500 && crawl.body.pages.length < 30, `${crawl.body.pages.length} pages, ${kept} characters`);
  const refused = await start();
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.code, 'crawl_storage_full');
  assert.match(refused.body.detail, /limit is 1500/);
  now += 25 * 3_600_000;
  assert.equal((await start()).status, 202, 'the first crawl passed its retention');
});
