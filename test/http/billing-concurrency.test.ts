// Atomic debits: 20 concurrent fetches against 5 remaining credits serve exactly 5, on every database, and across
// two server processes sharing one database; every fetcher's price serves what the credit pays for.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { browserSkip, CHROMIUM_PATH } from '../fetchers/chromium.js';
import { signUp, withKey, setPlan } from '../helpers/accounts.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { startFetcherSite, startReaderStandIn } from '../helpers/fixture-fetchers.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { appOnDatabase, buildTestApp } from '../helpers/test-app.js';

const site: FixtureSite = await startFixtureSite();
const fetcherSite = await startFetcherSite();
const reader = await startReaderStandIn('test-reader-key');
after(() => Promise.all([site.close(), fetcherSite.close(), reader.close()]));

let n = 0;
/** Distinct slow pages, so every request is an uncached 1-credit html fetch and they overlap in time. */
const slowPage = () => site.url(`/delay/150/race-${process.pid}-${Date.now()}-${n++}`);

const ENV = { FREE_MONTHLY_CREDITS: '5', CACHE_URL: 'memory://' };

async function fireFetches(bases: string[], apiKey: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${bases[i % bases.length]}/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...withKey(apiKey) },
        body: JSON.stringify({ url: slowPage() }),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

for (const backend of DATABASES) {
  describe(`atomic debits on ${backend.name}`, () => {
    test('20 concurrent fetches against 5 credits: exactly 5 are served and billed', async (t) => {
      const api = await appOnDatabase(t, backend, ENV);
      if (!api) return;
      const { apiKey } = await signUp(api);
      const statuses = await fireFetches([api.base], apiKey, 20);
      assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 402).length, 15);
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 5);
      assert.equal(usage.body.allowance.remaining_credits, 0);
      assert.equal(usage.body.fetches, 5);
    });
  });
}

describe('atomic debits across two server processes', () => {
  test('two processes sharing Postgres serve exactly 5 of 20', async (t) => {
    const postgres = DATABASES.find((d) => d.name === 'postgres')!;
    const env = await databaseEnv(t, postgres);
    if (!env) return;
    const api = await buildTestApp(t, { ...env, ...ENV });
    const second = await startServerProcess(t, {
      ...env,
      ...ENV,
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      RATE_LIMIT_ANONYMOUS: '0',
    });
    const { apiKey } = await signUp(api);
    const statuses = await fireFetches([api.base, second.base], apiKey, 20);
    assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 15);
    // Each process writes its rows within a flush (200 ms): the other's usage sees them by then.
    let used = 0;
    for (let tries = 0; tries < 100 && used !== 5; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const usage = await fetch(`${second.base}/account/usage`, { headers: withKey(apiKey) }).then((r) => r.json());
      used = usage.credits_used;
    }
    assert.equal(used, 5);
  });
});

/** Each forced fetcher, the page it reads and how many of 20 its price lets 5 credits pay for. */
const PRICED = [
  { fetcher: 'html', path: '/article', served: 5 },
  { fetcher: 'reader', path: '/article', served: 2 },
  { fetcher: 'pdf', path: '/report.pdf', served: 2 },
  ...(browserSkip() ? [] : [{ fetcher: 'browser', path: '/article', served: 1 }]),
];

for (const backend of DATABASES) {
  test(`two processes on ${backend.name}: 20 at once of every fetcher against 5 credits serve what they pay for`, async (t) => {
    const env = await databaseEnv(t, backend);
    if (!env) return;
    const shared = {
      ...env,
      ...ENV,
      // A plan that pays the price list (the free tier counts a page one fetch whatever its fetcher).
      STARTER_MONTHLY_CREDITS: '5',
      READER_BASE_URL: reader.baseUrl,
      READER_API_KEY: 'test-reader-key',
      BROWSER_POOL_SIZE: '2',
      CHROMIUM_PATH,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'fetchdown-two-')),
    };
    t.after(() => rmSync(shared.DATA_DIR, { recursive: true, force: true }));
    const api = await buildTestApp(t, shared);
    const second = await startServerProcess(t, {
      ...shared,
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      RATE_LIMIT_ANONYMOUS: '0',
    });
    for (const { fetcher, path, served } of PRICED) {
      const { apiKey } = await signUp(api);
      await setPlan(api, apiKey, 'starter');
      const run = `${backend.name}-${fetcher}-${process.pid}-${n++}`;
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${[api.base, second.base][i % 2]}/fetch`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...withKey(apiKey) },
            body: JSON.stringify({ url: fetcherSite.url(`${path}?run=${run}&i=${i}`), fetcher }),
          });
          return { status: res.status, body: (await res.json()) as { credits?: number } };
        }),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 200).length, served, `${fetcher}: ${JSON.stringify(statuses)}`);
      assert.equal(statuses.filter((s) => s === 402).length, 20 - served, fetcher);
      const answered = answers.reduce((sum, a) => sum + (a.status === 200 ? a.body.credits! : 0), 0);
      // Each process writes its rows within a flush (200 ms): the account's usage sees both by then.
      let used = -1;
      for (let tries = 0; tries < 100 && used !== answered; tries++) {
        if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        used = (await api.request('GET', '/account/usage', undefined, withKey(apiKey))).body.credits_used;
      }
      assert.equal(used, answered, fetcher);
      assert.ok(used <= 5, `${fetcher}: charged ${used} of 5`);
    }
  });
}
