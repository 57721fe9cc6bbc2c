// GET /admin/metrics on every database: 404 without ADMIN_TOKEN, 401 for a wrong one, and aggregates that match
// what happened; the token never reaches the request log.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { redactUrl } from '../../src/http/redact.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { appOnDatabase, buildTestApp } from '../helpers/test-app.js';

const site = await startFixtureSite({ after });

const TOKEN = 'admin-token-0123456789abcdef';

test('no ADMIN_TOKEN configured: 404 like any unknown route', async (t) => {
  const api = await buildTestApp(t);
  for (const path of ['/admin/metrics', `/admin/metrics?token=${TOKEN}`]) {
    const res = await api.get(path);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not_found');
  }
});

test('an ADMIN_TOKEN shorter than 16 characters is refused at start', async () => {
  const { loadConfig, ConfigError } = await import('../../src/config.js');
  assert.throws(
    () => loadConfig({ ADMIN_TOKEN: 'short' }),
    (e: unknown) => e instanceof ConfigError && e.message.startsWith('ADMIN_TOKEN:'),
  );
});

test('secret query values are redacted from logged URLs', () => {
  assert.equal(redactUrl(`/admin/metrics?token=${TOKEN}`), '/admin/metrics?token=[REDACTED]');
  assert.equal(redactUrl('/auth/verify?x=1&token=abc&y=2'), '/auth/verify?x=1&token=[REDACTED]&y=2');
  assert.equal(redactUrl('/fetch'), '/fetch');
});

for (const backend of DATABASES) {
  describe(`admin metrics on ${backend.name}`, () => {
    test('token as header or query, compared exactly; aggregates of accounts, keys and requests', async (t) => {
      const api = await appOnDatabase(t, backend, { ADMIN_TOKEN: TOKEN });
      if (!api) return;
      for (const headers of [
        {},
        { 'x-admin-token': 'wrong' },
        { 'x-admin-token': `${TOKEN}x` },
        { 'x-admin-token': TOKEN.slice(0, -1) },
      ] as Record<string, string>[]) {
        const res = await api.request('GET', '/admin/metrics', undefined, headers);
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.body.code, 'invalid_admin_token');
      }
      assert.equal((await api.get('/admin/metrics?token=wrong')).status, 401);

      const alice = await signUp(api);
      const bob = await signUp(api);
      await api.request('POST', '/account/keys', undefined, withKey(alice.apiKey));
      await api.request('DELETE', `/account/keys/${bob.keyId}`, undefined, withKey(bob.apiKey));
      const url = site.url(`/unique/admin-${process.pid}-${Date.now()}`);
      await api.request('POST', '/fetch', { url }, withKey(alice.apiKey));
      await api.request('POST', '/fetch', { url }, withKey(alice.apiKey));
      await api.request('POST', '/fetch', { url: site.url('/status/503') }, withKey(alice.apiKey));
      await api.request('GET', `/estimate?url=${encodeURIComponent(url)}`, undefined, withKey(alice.apiKey));
      await api.post('/fetch', { url });

      const viaHeader = await api.request('GET', '/admin/metrics', undefined, { 'x-admin-token': TOKEN });
      assert.equal(viaHeader.status, 200);
      const viaQuery = await api.get(`/admin/metrics?token=${TOKEN}`);
      assert.equal(viaQuery.status, 200);
      const m = viaHeader.body;
      assert.deepEqual(m.accounts, { total: 2, by_plan: { free: 2 } });
      assert.equal(m.active_keys, 2);
      for (const window of [m.last_24h, m.month]) {
        assert.equal(window.requests, 5);
        assert.equal(window.anonymous_requests, 1);
        assert.equal(window.credits, 1.3);
        assert.equal(window.errors, 1);
        assert.deepEqual(window.by_status, { ok: 4, upstream_status: 1 });
        assert.deepEqual(window.by_operation, {
          fetch: { requests: 4, credits: 1.1 },
          estimate: { requests: 1, credits: 0.2 },
        });
        assert.deepEqual(window.by_fetcher, { html: { requests: 3, credits: 1.1 } });
        assert.equal(window.cache_hit_ratio, 2 / 3);
        assert.equal(typeof window.latency_ms.p50, 'number');
        assert.ok(window.latency_ms.p95 >= window.latency_ms.p50);
      }
    });
  });
}
