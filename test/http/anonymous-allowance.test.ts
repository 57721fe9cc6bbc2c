// The anonymous tier is a trial: a monthly allowance of metered requests per client address, kept in the store so it
// holds across restarts, never counting the machine's own requests, and never storing an address.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const site = await startFixtureSite({ after });

/** A client elsewhere, named by the trusted proxy (TRUST_PROXY=loopback: the test calls from 127.0.0.1). */
const from = (ip: string) => ({ 'x-forwarded-for': ip });

for (const backend of DATABASES) {
  describe(`the anonymous monthly allowance on ${backend.name}`, () => {
    test('each address gets its allowance, the machine itself is not counted, and a restart forgets nothing', async (t) => {
      const dbEnv = await databaseEnv(t, backend);
      if (!dbEnv) return;
      const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-anonymous-'));
      t.after(() => rmSync(dataDir, { recursive: true, force: true }));
      const env = { ...dbEnv, DATA_DIR: dataDir, ANONYMOUS_MONTHLY_REQUESTS: '3' };
      const fetchAs = (api: TestApp, ip: string | null, page: string) =>
        api.request('POST', '/fetch', { url: site.url(`/article?${page.slice(1)}`) }, ip === null ? {} : from(ip));

      const first = await buildTestApp(t, env);
      for (let i = 0; i < 3; i++) assert.equal((await fetchAs(first, '203.0.113.7', `/a${i}`)).status, 200);
      const refused = await fetchAs(first, '203.0.113.7', '/a3');
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.body.code, 'quota_exceeded');
      assert.match(refused.body.detail, /3 requests a month served without an API key.*Sign up for a free key/);
      assert.equal(refused.body.anonymous_monthly_requests, 3);
      assert.match(refused.body.signup_url, /\/account\/signup$/);
      assert.equal((await fetchAs(first, '203.0.113.8', '/b0')).status, 200, 'another address has its own');
      for (let i = 0; i < 5; i++) assert.equal((await fetchAs(first, null, `/local${i}`)).status, 200);
      await first.close();

      const second = await buildTestApp(t, env);
      assert.equal((await fetchAs(second, '203.0.113.7', '/a4')).status, 402, 'the count outlived the restart');
      assert.equal((await fetchAs(second, '203.0.113.8', '/b1')).status, 200);
      assert.equal((await fetchAs(second, '203.0.113.8', '/b2')).status, 200);
      assert.equal((await fetchAs(second, '203.0.113.8', '/b3')).status, 402);
      await second.services.accounts.anonymous.flush();
      const rows = await second.services.store.db.selectFrom('anonymous_usage').selectAll().execute();
      assert.deepEqual(rows.map((row) => row.requests).sort(), [3, 3]);
      assert.ok(
        rows.every((row) => /^[0-9a-f]{64}$/.test(row.client_hash)),
        'addresses are kept only as hashes',
      );
    });
  });
}
