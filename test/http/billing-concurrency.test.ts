// Atomic debits: 20 concurrent fetches against 5 remaining credits serve exactly 5, on every database, and across
// two server processes sharing one Postgres database.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp } from '../helpers/test-app.js';

const site: FixtureSite = await startFixtureSite();
after(() => site.close());

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
      const env = await backend.env(t);
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, ...ENV });
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
    const env = await postgres.env(t);
    if (typeof env === 'string') return t.skip(env);
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
