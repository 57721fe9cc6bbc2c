// Billing over HTTP on every database: the spec's prices per operation, the ledger row of each, failures free,
// batch per URL, search and MCP billed like REST, 402 with how to get more, prepaid balance, plans, month rollover.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signUp, withKey, setPlan } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { connectHttp, textOf } from '../helpers/mcp-client.js';
import { startSearxngStandin, type SearchStandin } from '../helpers/search-standins.js';
import { appOnDatabase, type TestApp } from '../helpers/test-app.js';

// Top level: on Node 20 an `after` registered inside `before` runs as soon as that hook ends.
const site: FixtureSite = await startFixtureSite();
const searxng: SearchStandin = await startSearxngStandin([]);
after(async () => {
  await Promise.all([site.close(), searxng.close()]);
});

let n = 0;
const unique = (tag: string) => site.url(`/unique/${tag}-${process.pid}-${Date.now()}-${n++}`);

async function usage(api: TestApp, apiKey: string) {
  const res = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const fetchAs = (api: TestApp, apiKey: string, body: unknown) => api.request('POST', '/fetch', body, withKey(apiKey));

for (const backend of DATABASES) {
  describe(`billing on ${backend.name}`, () => {
    async function app(
      t: Parameters<typeof backend.env>[0] & { skip(m?: string): void },
      env: Record<string, string> = {},
      clock?: { now(): number },
    ) {
      return appOnDatabase(t, backend, { FREE_MONTHLY_CREDITS: '10', ...env }, { clock });
    }

    test('prices: html 1, cache hit 0.1, estimate 0.2, failures free; one ledger row each', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { apiKey, keyId } = await signUp(api);
      const url = unique('price');
      const first = await fetchAs(api, apiKey, { url });
      assert.equal(first.status, 200);
      assert.equal(first.body.fetch_info.fetcher_used, 'html');
      assert.equal(first.body.cache.hit, false);
      const second = await fetchAs(api, apiKey, { url, max_tokens: 10 });
      assert.equal(second.body.cache.hit, true);
      const estimate = await api.request(
        'GET',
        `/estimate?url=${encodeURIComponent(unique('estimate'))}`,
        undefined,
        withKey(apiKey),
      );
      assert.equal(estimate.status, 200);
      const failed = await fetchAs(api, apiKey, { url: site.url('/status/500') });
      assert.equal(failed.status, 502);
      const invalid = await fetchAs(api, apiKey, { url: 'ftp://example.com/' });
      assert.equal(invalid.status, 422, 'refused by validation before any metering');
      const cacheStatus = await api.request('GET', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey));
      assert.equal(cacheStatus.status, 200, '/cache takes the key and is not billed');

      const summary = await usage(api, apiKey);
      assert.equal(summary.credits_used, 1.3);
      assert.equal(summary.fetches, 2);
      assert.equal(summary.cache_hits, 1);
      assert.equal(summary.failed, 1);
      assert.equal(summary.requests, 4);
      assert.deepEqual(summary.by_operation, {
        fetch: { credits: 1.1, requests: 3 },
        estimate: { credits: 0.2, requests: 1 },
      });
      assert.deepEqual(summary.by_fetcher, { html: { credits: 1.1, requests: 2 } });
      assert.equal(summary.allowance.monthly_credits, 10);
      assert.equal(summary.allowance.used_credits, 1.3);
      assert.equal(summary.allowance.remaining_credits, 8.7);
      assert.equal(summary.balance_credits, 0);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(summary.daily.at(-1).date, today);
      assert.equal(summary.daily.at(-1).credits, 1.3);
      assert.equal(summary.daily.length, Number(today.slice(8, 10)), 'one entry per day of the month so far');
      assert.equal(summary.period.month, today.slice(0, 7));

      const rows = await api.services.store.db.selectFrom('ledger').selectAll().orderBy('id').execute();
      assert.equal(rows.length, 4);
      const host = new URL(url).host;
      assert.deepEqual(
        rows.map((r) => [r.operation, r.fetcher, r.credits_millis, r.cache_hit, r.status, r.url_host, r.key_id]),
        [
          ['fetch', 'html', 1000, 0, 'ok', host, keyId],
          ['fetch', 'html', 100, 1, 'ok', host, keyId],
          ['estimate', null, 200, 0, 'ok', host, keyId],
          ['fetch', null, 0, 0, 'upstream_status', host, keyId],
        ],
      );
      assert.equal(rows[0]!.tokens, first.body.metadata.token_count);
      assert.equal(rows[1]!.tokens, second.body.metadata.token_count);
      assert.ok(rows.every((r) => r.account_id === rows[0]!.account_id && r.at > 0 && r.duration_ms >= 0));
    });

    test('batch: billed per URL; URLs beyond the credit get quota_exceeded; none payable is 402', async (t) => {
      const api = await app(t, { FREE_MONTHLY_CREDITS: '5' });
      if (!api) return;
      const { apiKey } = await signUp(api);
      const ok = await api.request(
        'POST',
        '/fetch/batch',
        { urls: [unique('b'), unique('b'), site.url('/status/404')] },
        withKey(apiKey),
      );
      assert.equal(ok.status, 200);
      assert.equal((await usage(api, apiKey)).credits_used, 2, 'the failed URL is free');
      const partial = await api.request(
        'POST',
        '/fetch/batch',
        { urls: [unique('p'), unique('p'), unique('p'), unique('p'), unique('p')] },
        withKey(apiKey),
      );
      assert.equal(partial.status, 200);
      const served = partial.body.results.filter((r: any) => !r.error);
      const refused = partial.body.results.filter((r: any) => r.error);
      assert.equal(served.length, 3);
      assert.equal(refused.length, 2);
      for (const r of refused) {
        assert.equal(r.error.status, 402);
        assert.equal(r.error.code, 'quota_exceeded');
      }
      const summary = await usage(api, apiKey);
      assert.equal(summary.credits_used, 5);
      // Each URL is a row, the two refused ones too (402s charge nothing but are counted).
      assert.deepEqual(summary.by_operation, { batch: { credits: 5, requests: 8 } });
      const none = await api.request('POST', '/fetch/batch', { urls: [unique('n')] }, withKey(apiKey));
      assert.equal(none.status, 402);
      assert.equal(none.body.code, 'quota_exceeded');
      const refusals = await usage(api, apiKey);
      assert.deepEqual(refusals.by_operation, { batch: { credits: 5, requests: 9 } }, 'a refused batch is a row');
      assert.equal(refusals.failed, 4, 'the 404 and the three refusals');
    });

    test('402 quota_exceeded says how to get more; a credit pack is used after the allowance', async (t) => {
      const api = await app(t, { FREE_MONTHLY_CREDITS: '1', PUBLIC_BASE_URL: 'https://fetchdown.example' });
      if (!api) return;
      const { apiKey } = await signUp(api);
      assert.equal((await fetchAs(api, apiKey, { url: unique('q') })).status, 200);
      const refused = await fetchAs(api, apiKey, { url: unique('q') });
      assert.equal(refused.status, 402);
      assert.equal(refused.body.code, 'quota_exceeded');
      assert.match(refused.body.detail, /credit pack/);
      assert.match(refused.body.detail, /https:\/\/fetchdown\.example\/dashboard/);
      assert.equal(refused.body.plan, 'free');
      assert.equal(refused.body.monthly_credits, 1);
      assert.equal(refused.body.balance_credits, 0);
      assert.equal(refused.body.upgrade_url, 'https://fetchdown.example/dashboard');
      assert.match(refused.body.renews_at, /^\d{4}-\d{2}-01T00:00:00\.000Z$/);
      assert.equal(
        (await api.request('GET', `/estimate?url=${encodeURIComponent(unique('q'))}`, undefined, withKey(apiKey)))
          .status,
        402,
      );

      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      await api.services.accounts.addBalance(me.body.id, 2000);
      assert.equal((await fetchAs(api, apiKey, { url: unique('q') })).status, 200);
      const summary = await usage(api, apiKey);
      assert.equal(summary.balance_credits, 1);
      assert.equal(summary.allowance.remaining_credits, 0);
      assert.equal(summary.credits_used, 2);
      const row = await api.services.store.db
        .selectFrom('ledger')
        .selectAll()
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(row.balance_millis, 1000, 'the ledger says the balance paid');
    });

    test('plans: each plan has its own configurable allowance', async (t) => {
      const api = await app(t, { FREE_MONTHLY_CREDITS: '1', STARTER_MONTHLY_CREDITS: '3' });
      if (!api) return;
      const { apiKey } = await signUp(api);
      assert.equal((await fetchAs(api, apiKey, { url: unique('plan') })).status, 200);
      assert.equal((await fetchAs(api, apiKey, { url: unique('plan') })).status, 402);
      await setPlan(api, apiKey, 'starter');
      assert.equal((await fetchAs(api, apiKey, { url: unique('plan') })).status, 200);
      assert.equal((await fetchAs(api, apiKey, { url: unique('plan') })).status, 200);
      assert.equal((await fetchAs(api, apiKey, { url: unique('plan') })).status, 402);
      const summary = await usage(api, apiKey);
      assert.equal(summary.plan, 'starter');
      assert.equal(summary.allowance.monthly_credits, 3);
    });

    test('the monthly allowance renews on the first of the month', async (t) => {
      const at = { now: Date.UTC(2026, 10, 30, 23, 59, 0) };
      const api = await app(t, { FREE_MONTHLY_CREDITS: '2' }, { now: () => at.now });
      if (!api) return;
      const { apiKey } = await signUp(api);
      assert.equal((await fetchAs(api, apiKey, { url: unique('month') })).status, 200);
      assert.equal((await fetchAs(api, apiKey, { url: unique('month') })).status, 200);
      const refused = await fetchAs(api, apiKey, { url: unique('month') });
      assert.equal(refused.status, 402);
      assert.equal(refused.body.renews_at, '2026-12-01T00:00:00.000Z');
      const november = await usage(api, apiKey);
      assert.equal(november.period.month, '2026-11');
      assert.equal(november.credits_used, 2);
      assert.equal(november.daily.length, 30);

      at.now = Date.UTC(2026, 11, 1, 0, 0, 30);
      assert.equal((await fetchAs(api, apiKey, { url: unique('month') })).status, 200);
      const december = await usage(api, apiKey);
      assert.equal(december.period.month, '2026-12');
      assert.equal(december.credits_used, 1);
      assert.equal(december.allowance.remaining_credits, 1);
      assert.deepEqual(december.daily, [{ date: '2026-12-01', credits: 1, requests: 1 }]);
    });

    test('search and MCP tools are billed like the REST routes', async (t) => {
      const api = await app(t, {
        SEARCH_PROVIDER: 'searxng',
        SEARCH_BASE_URL: searxng.origin,
        FREE_MONTHLY_CREDITS: '100',
      });
      if (!api) return;
      const { apiKey } = await signUp(api);
      searxng.setMode('ok');
      searxng.setHits([0, 1, 2, 3].map((i) => ({ title: `R${i}`, url: unique('search'), snippet: 's' })));
      // The free tier counts the pages a search pays for (three at least); a paid plan pays the price list.
      const three = await api.request('POST', '/search', { query: 'tomatoes', num_results: 3 }, withKey(apiKey));
      assert.equal(three.status, 200, three.text);
      assert.equal(three.body.credits, 3);
      assert.equal((await usage(api, apiKey)).by_operation.search.credits, 3);
      await setPlan(api, apiKey, 'starter');
      const four = await api.request('POST', '/search', { query: 'tomatoes', num_results: 4 }, withKey(apiKey));
      assert.equal(four.status, 200);
      assert.equal(four.body.credits, 16);
      assert.equal((await usage(api, apiKey)).by_operation.search.credits, 3 + 16);
      searxng.setMode('error');
      assert.equal((await api.request('POST', '/search', { query: 'tomatoes' }, withKey(apiKey))).status, 502);
      assert.equal((await usage(api, apiKey)).by_operation.search.credits, 19, 'a failed search is free');

      const client = await connectHttp(t, api.base, withKey(apiKey));
      const result = await client.callTool({ name: 'fetch_url', arguments: { url: unique('mcp') } });
      assert.ok(!result.isError, textOf(result));
      const summary = await usage(api, apiKey);
      assert.deepEqual(summary.by_operation.fetch, { credits: 1, requests: 1 });
    });

    test('anonymous calls are recorded but never billed; without ANONYMOUS_ACCESS a key is required', async (t) => {
      const api = await app(t);
      if (!api) return;
      const anonymous = await api.post('/fetch', { url: unique('anon') });
      assert.equal(anonymous.status, 200);
      await api.services.accounts.flushRecords(); // unbilled rows are written in batches
      const rows = await api.services.store.db.selectFrom('ledger').selectAll().execute();
      assert.deepEqual(
        rows.map((r) => [r.account_id, r.credits_millis, r.status]),
        [[null, 0, 'ok']],
      );

      const closed = await app(t, { ANONYMOUS_ACCESS: '0' });
      if (!closed) return;
      const url = encodeURIComponent(unique('closed'));
      const routes: [string, string, unknown][] = [
        ['POST', '/fetch', { url: unique('closed') }],
        ['POST', '/fetch/batch', { urls: [unique('closed')] }],
        ['GET', `/estimate?url=${url}`, undefined],
        ['GET', `/cache?url=${url}`, undefined],
        ['DELETE', `/cache?url=${url}`, undefined],
        ['POST', '/search', { query: 'tomatoes' }],
      ];
      for (const [method, path, body] of routes) {
        const res = await closed.request(method, path, body);
        assert.equal(res.status, 401, `${method} ${path}`);
        assert.equal(res.body.code, 'invalid_api_key');
        assert.equal(res.headers.get('www-authenticate'), 'ApiKey header="X-Service-Key"');
      }
      const { apiKey } = await signUp(closed);
      assert.equal((await fetchAs(closed, apiKey, { url: unique('closed') })).status, 200);
    });

    test('a bad or revoked key is 401 on the fetch routes even when anonymous access is on', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { apiKey, keyId } = await signUp(api);
      assert.equal((await fetchAs(api, `fd_live_${'B'.repeat(43)}`, { url: unique('bad') })).status, 401);
      assert.equal((await fetchAs(api, 'garbage', { url: unique('bad') })).status, 401);
      assert.equal((await fetchAs(api, apiKey, { url: unique('bad') })).status, 200);
      await api.request('DELETE', `/account/keys/${keyId}`, undefined, withKey(apiKey));
      const revoked = await fetchAs(api, apiKey, { url: unique('bad') });
      assert.equal(revoked.status, 401);
      assert.equal(revoked.body.code, 'invalid_api_key');
      assert.match(revoked.body.detail, /revoked/);
    });
  });
}
