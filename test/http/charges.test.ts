// Charges that match the work: a fetch holds what its fetcher can cost before it runs, so concurrent requests never
// get more work than the balance pays for. Forced fetchers hold their own price; auto holds html's and tops up before
// a dearer fallback, which a caller who cannot pay it does not get (a cheaper route, or a 402 naming the fetcher).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkip, CHROMIUM_PATH } from '../fetchers/chromium.js';
import { requestServed } from '../helpers/busy.js';
import { signUp, withKey, setPlan } from '../helpers/accounts.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import {
  startFetcherSite,
  startReaderStandIn,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { appOnDatabase, buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let reader: ReaderStandIn;
before(async () => {
  site = await startFetcherSite();
  reader = await startReaderStandIn('test-reader-key');
});
after(async () => {
  await Promise.all([site.close(), reader.close()]);
});

const skipBrowser = browserSkip();
let n = 0;

async function appWith5Credits(t: { after(fn: () => Promise<void> | void): unknown }, dbEnv: Record<string, string>) {
  return buildTestApp(t, {
    ...dbEnv,
    FREE_MONTHLY_CREDITS: '5',
    STARTER_MONTHLY_CREDITS: '5',
    READER_BASE_URL: reader.baseUrl,
    READER_API_KEY: 'test-reader-key',
    BROWSER_POOL_SIZE: '2',
    CHROMIUM_PATH,
  });
}

/** A new key of an account on a plan whose 5 monthly credits pay the price list (the free tier counts fetches). */
async function signUpPaid(api: TestApp) {
  const signed = await signUp(api);
  await setPlan(api, signed.apiKey, 'starter');
  return signed;
}

/** 20 fetches at once, each of a URL of its own; the statuses and what the account was charged. */
async function fireTwenty(api: TestApp, apiKey: string, body: (i: number) => object) {
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => api.request('POST', '/fetch', body(i), withKey(apiKey))),
  );
  const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
  return { responses, statuses: responses.map((r) => r.status), creditsUsed: usage.body.credits_used as number };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

for (const backend of DATABASES) {
  describe(`charges that match the work on ${backend.name}`, () => {
    test('forced reader and pdf: 20 at once against 5 credits serve 2 of each price-2 page, never more', async (t) => {
      const env = await databaseEnv(t, backend);
      if (!env) return;
      for (const [fetcher, path] of [
        ['reader', '/article'],
        ['pdf', '/report.pdf'],
      ] as const) {
        const api = await appWith5Credits(t, env);
        const { apiKey } = await signUpPaid(api);
        const run = `${backend.name}-${fetcher}-${process.pid}-${n++}`;
        const { statuses, responses, creditsUsed } = await fireTwenty(api, apiKey, (i) => ({
          url: site.url(`${path}?run=${run}&i=${i}`),
          fetcher,
        }));
        assert.equal(count(statuses, 200), 2, `${fetcher}: ${JSON.stringify(statuses)}`);
        assert.equal(count(statuses, 402), 18, fetcher);
        assert.equal(creditsUsed, 4, fetcher);
        const served = responses.filter((r) => r.status === 200);
        assert.ok(served.every((r) => r.body.fetch_info.fetcher_used === fetcher && r.body.credits === 2));
      }
    });

    test(
      'forced browser: 20 at once against 5 credits serve one render, as one after another would',
      { skip: skipBrowser },
      async (t) => {
        const env = await databaseEnv(t, backend);
        if (!env) return;
        const api = await appWith5Credits(t, env);
        const { apiKey } = await signUpPaid(api);
        const run = `${backend.name}-browser-${process.pid}-${n++}`;
        const { statuses, creditsUsed } = await fireTwenty(api, apiKey, (i) => ({
          url: site.url(`/article?run=${run}&i=${i}`),
          fetcher: 'browser',
        }));
        assert.equal(count(statuses, 200), 1, JSON.stringify(statuses));
        assert.equal(count(statuses, 402), 19);
        assert.equal(creditsUsed, 5);
      },
    );

    test(
      'auto: a fallback is held before it runs; one the caller cannot pay for gives way to a cheaper route',
      { skip: skipBrowser },
      async (t) => {
        const env = await databaseEnv(t, backend);
        if (!env) return;
        const api = await appWith5Credits(t, env);
        const shell = () => site.url(`/app-shell?run=${backend.name}-shell-${process.pid}-${n++}`);

        // 5 credits pay for a render: html's 1 held first, 4 more before the browser runs.
        const rich = await signUpPaid(api);
        const rendered = await api.request('POST', '/fetch', { url: shell() }, withKey(rich.apiKey));
        assert.equal(rendered.status, 200, rendered.text);
        assert.equal(rendered.body.fetch_info.fetcher_used, 'browser');
        const usage = await api.request('GET', '/account/usage', undefined, withKey(rich.apiKey));
        assert.equal(usage.body.credits_used, 5);

        // 3 credits do not: the browser is skipped as unaffordable and the reader (2 credits) reads the page.
        const poorer = await signUpPaid(api);
        await api.services.store.db
          .updateTable('accounts')
          .set({ allowance_used_millis: 2000, allowance_period: new Date().toISOString().slice(0, 7) })
          .where('email', '=', poorer.email)
          .execute();
        const cheaper = await api.request('POST', '/fetch', { url: shell() }, withKey(poorer.apiKey));
        assert.equal(cheaper.status, 200, cheaper.text);
        assert.equal(cheaper.body.fetch_info.fetcher_used, 'reader');
        assert.deepEqual(
          cheaper.body.fetch_info.attempts.map((a: { fetcher: string; outcome: string }) => [a.fetcher, a.outcome]),
          [
            ['html', 'app_shell'],
            ['browser', 'unaffordable'],
            ['reader', 'ok'],
          ],
        );
        assert.equal(cheaper.body.credits, 2);
      },
    );

    test(
      'auto, 20 at once against 5 credits: never overdrawn, and every credit charged is for a page served',
      { skip: skipBrowser },
      async (t) => {
        const env = await databaseEnv(t, backend);
        if (!env) return;
        const api = await appWith5Credits(t, env);
        const { apiKey } = await signUpPaid(api);
        const run = `${backend.name}-shells-${process.pid}-${n++}`;
        const { statuses, responses, creditsUsed } = await fireTwenty(api, apiKey, (i) => ({
          url: site.url(`/app-shell?run=${run}&i=${i}`),
        }));
        const served = responses.filter((r) => r.status === 200);
        assert.ok(
          served.filter((r) => r.body.fetch_info.fetcher_used === 'browser').length <= 1,
          JSON.stringify(statuses),
        );
        assert.equal(served.length + count(statuses, 402), 20, JSON.stringify(statuses));
        const billed = served.reduce((sum, r) => sum + (r.body.credits as number), 0);
        assert.equal(creditsUsed, billed);
        assert.ok(creditsUsed <= 5, `charged ${creditsUsed} of 5`);
      },
    );

    test('the free tier counts fetches: 20 at once against 5 a month serve 5 pages of any fetcher, one fetch each', async (t) => {
      const env = await databaseEnv(t, backend);
      if (!env) return;
      const fetchers = [
        ['reader', '/article'],
        ['pdf', '/report.pdf'],
        ...(skipBrowser ? [] : [['browser', '/article']]),
      ];
      for (const [fetcher, path] of fetchers) {
        const api = await appWith5Credits(t, env);
        const { apiKey } = await signUp(api);
        const run = `${backend.name}-free-${fetcher}-${process.pid}-${n++}`;
        const { statuses, responses, creditsUsed } = await fireTwenty(api, apiKey, (i) => ({
          url: site.url(`${path}?run=${run}&i=${i}`),
          fetcher,
        }));
        // A render the browser pool has no room for is the server's 503 (not charged), not a 402.
        const served = count(statuses, 200);
        assert.equal(served + count(statuses, 503), 5, `${fetcher}: ${JSON.stringify(statuses)}`);
        assert.equal(count(statuses, 402), 15, fetcher);
        assert.equal(creditsUsed, served, fetcher);
        assert.ok(responses.filter((r) => r.status === 200).every((r) => r.body.credits === 1));
      }
    });

    test('the free tier: an estimate counts 0.2 and a cache hit 0.1; used up, prepaid credits pay the price list', async (t) => {
      const env = await databaseEnv(t, backend);
      if (!env) return;
      const api = await appWith5Credits(t, env);
      const { apiKey } = await signUp(api);
      const run = `${backend.name}-free-mix-${process.pid}-${n++}`;
      const pdf = site.url(`/report.pdf?run=${run}`);
      const fetched = await requestServed(api, 'POST', '/fetch', { url: pdf, fetcher: 'pdf' }, withKey(apiKey));
      assert.equal(fetched.body.credits, 1, fetched.text);
      const hit = await api.request('POST', '/fetch', { url: pdf, fetcher: 'pdf' }, withKey(apiKey));
      assert.equal(hit.body.cache.hit, true);
      assert.equal(hit.body.credits, 0.1);
      const article = encodeURIComponent(site.url(`/article?run=${run}`));
      const estimate = await api.request('GET', `/estimate?url=${article}`, undefined, withKey(apiKey));
      assert.equal(estimate.status, 200, estimate.text);
      const batch = await api.request(
        'POST',
        '/fetch/batch',
        { urls: [1, 2, 3].map((i) => site.url(`/report.pdf?run=${run}&b=${i}`)) },
        withKey(apiKey),
      );
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(
        batch.body.results.map((r: { credits: number; fetch_info: { fetcher_used: string } }) => [
          r.fetch_info.fetcher_used,
          r.credits,
        ]),
        [
          ['pdf', 1],
          ['pdf', 1],
          ['pdf', 1],
        ],
      );
      let usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 4.3);

      // 0.7 left is less than a fetch: a page is paid from prepaid credits, at its price (a pdf: 2).
      const refused = await api.request('POST', '/fetch', { url: `${pdf}&again`, fetcher: 'pdf' }, withKey(apiKey));
      assert.equal(refused.status, 402, refused.text);
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      await api.services.accounts.addBalance(me.body.id, 2000);
      const paid = await api.request('POST', '/fetch', { url: `${pdf}&again`, fetcher: 'pdf' }, withKey(apiKey));
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.credits, 2);
      usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 6.3);
    });

    test('a cache hit holds the cache rate: 0.9 credits pay for hits; 1 credit pays for 10 of 20 concurrent hits', async (t) => {
      const api = await appOnDatabase(t, backend, { FREE_MONTHLY_CREDITS: '1' });
      if (!api) return;
      const url = site.url(`/article?run=${backend.name}-hits-${process.pid}-${n++}`);
      const first = await signUp(api);
      assert.equal((await api.request('POST', '/fetch', { url }, withKey(first.apiKey))).body.credits, 1);

      const second = await signUp(api);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const hit = await api.request('POST', '/fetch', { url }, withKey(second.apiKey));
        assert.equal(hit.body.cache.hit, true);
        statuses.push(hit.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200], "held at 0.1, not at html's 1 credit");
      const spent = await api.request('GET', '/account/usage', undefined, withKey(second.apiKey));
      assert.equal(spent.body.credits_used, 0.4);

      const third = await signUp(api);
      const { statuses: twenty, responses, creditsUsed } = await fireTwenty(api, third.apiKey, () => ({ url }));
      assert.equal(count(twenty, 200), 10, JSON.stringify(twenty));
      assert.equal(count(twenty, 402), 10);
      assert.equal(creditsUsed, 1);
      assert.ok(responses.filter((r) => r.status === 200).every((r) => r.body.credits === 0.1));
    });

    test('a batch says what each URL was charged: a repeated URL is charged once, and the answers add up to the ledger', async (t) => {
      const api = await appOnDatabase(t, backend);
      if (!api) return;
      const { apiKey } = await signUp(api);
      const run = `${backend.name}-batch-${process.pid}-${n++}`;
      const [a, b] = [site.url(`/article?run=${run}-a`), site.url(`/article?run=${run}-b`)];
      const batch = await api.request('POST', '/fetch/batch', { urls: [a, a, b, a] }, withKey(apiKey));
      assert.equal(batch.status, 200, batch.text);
      const credits = batch.body.results.map((r: { credits: number }) => r.credits);
      assert.deepEqual(credits, [1, 0, 1, 0]);
      const again = await api.request('POST', '/fetch/batch', { urls: [b, a] }, withKey(apiKey));
      assert.deepEqual(
        again.body.results.map((r: { credits: number; cache: { hit: boolean } }) => [r.credits, r.cache.hit]),
        [
          [0.1, true],
          [0.1, true],
        ],
      );
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 2.2);
      assert.deepEqual(usage.body.by_operation, { batch: { credits: 2.2, requests: 4 } });
    });
  });
}
