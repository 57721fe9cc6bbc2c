// The account database going away and coming back, seen through a TCP proxy in front of Postgres that the test cuts:
// routes that need the database answer 503 store_unavailable (never a 500) while it is gone, /ready names it, the
// cut connections do not end the process, and requests succeed again once it is back. Batches and MCP tools too,
// including when the database goes away in the middle of the work (a stand-in site cuts it while it answers).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { signIn, signUp, withKey, setPlan } from '../helpers/accounts.js';
import { connectClient, postForm, registerClient, startClientSite } from '../helpers/oauth.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { startReaderStandIn } from '../helpers/fixture-fetchers.js';
import { ARTICLE_HTML } from '../helpers/fixture-site.js';
import { connectHttp, textOf } from '../helpers/mcp-client.js';
import { startCuttableProxy } from '../helpers/cuttable-proxy.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { buildTestApp } from '../helpers/test-app.js';

const postgres = DATABASES.find((d) => d.name === 'postgres')!;

describe('account store outage', () => {
  test('while the database is gone: 503 store_unavailable on sign-up and keyed routes, /ready names it; then back', async (t) => {
    const env = await databaseEnv(t, postgres);
    if (!env) return;
    const proxy = await startCuttableProxy(new URL(env.DATABASE_URL!));
    const target = new URL(env.DATABASE_URL!);
    t.after(() => proxy.close());
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    const api = await buildTestApp(t, { DATABASE_URL: target.href });
    const { apiKey } = await signUp(api);
    // Requests at once leave several idle connections in the pool, each cut below.
    await Promise.all(Array.from({ length: 4 }, () => api.request('GET', '/account/me', undefined, withKey(apiKey))));

    await proxy.cut();
    const signup = await api.post('/account/signup', { email: `outage-${process.pid}-${Date.now()}@example.com` });
    assert.equal(signup.status, 503, signup.text);
    assert.equal(signup.body.code, 'store_unavailable');
    assert.match(signup.body.detail, /account store is unavailable/);
    assert.equal(signup.headers.get('retry-after'), '5');
    for (let i = 0; i < 4; i++) {
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(me.status, 503, me.text);
      assert.equal(me.body.code, 'store_unavailable');
    }
    const ready = await api.get('/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.database.ok, false);

    await proxy.resume();
    assert.equal((await api.request('GET', '/account/me', undefined, withKey(apiKey))).status, 200);
    assert.equal((await api.get('/ready')).status, 200);
  });

  /** Postgres behind a cuttable proxy, an app on it with one account, and a site whose /cut page cuts the database. */
  async function outage(t: Parameters<typeof postgres.env>[0] & { skip(m?: string): void }) {
    const env = await databaseEnv(t, postgres);
    if (!env) return null;
    const proxy = await startCuttableProxy(new URL(env.DATABASE_URL!));
    t.after(async () => {
      await proxy.close();
    });
    const target = new URL(env.DATABASE_URL!);
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    // /cut… answers a bot challenge, so the router moves on to the reader, whose dearer price the meter holds (a
    // database write) after the fetch began: the database is cut first.
    const site = createServer((req, res) => {
      if (!req.url?.startsWith('/cut'))
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
      void proxy
        .cut()
        .then(() =>
          res
            .writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'cf-mitigated': 'challenge' })
            .end('<!doctype html><html><head><title>Just a moment...</title></head><body>Checking</body></html>'),
        );
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    t.after(() => new Promise<void>((resolve) => site.close(() => resolve())));
    const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    const reader = await startReaderStandIn('reader-key');
    t.after(() => reader.close());
    const api = await buildTestApp(t, {
      DATABASE_URL: target.href,
      ROBOTS_TXT: 'ignore',
      BROWSER_POOL_SIZE: '0',
      READER_BASE_URL: reader.baseUrl,
      READER_API_KEY: 'reader-key',
    });
    const { apiKey } = await signUp(api);
    // A plan that pays the price list: on the free tier a page counts one fetch whatever fetcher reads it.
    await setPlan(api, apiKey, 'starter');
    return { api, proxy, apiKey, origin };
  }

  const mcpCall = (name: string, args: object) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

  test('batch and MCP tools with the database already gone: 503 store_unavailable, never 500', async (t) => {
    const setup = await outage(t);
    if (!setup) return;
    const { api, proxy, apiKey, origin } = setup;
    await proxy.cut();
    const batch = await api.request('POST', '/fetch/batch', { urls: [`${origin}/a`, `${origin}/b`] }, withKey(apiKey));
    assert.equal(batch.status, 503, batch.text);
    assert.equal(batch.body.code, 'store_unavailable');
    assert.equal(batch.headers.get('retry-after'), '5');
    for (const [tool, args] of [
      ['fetch_url', { url: `${origin}/a` }],
      ['fetch_multiple', { urls: [`${origin}/a`] }],
    ] as const) {
      const res = await api.request('POST', '/mcp', mcpCall(tool, args), { ...MCP_HEADERS, ...withKey(apiKey) });
      assert.equal(res.status, 503, `${tool}: ${res.text}`);
      assert.equal(res.body.code, 'store_unavailable');
    }
    // Without a key nothing on the way needs the database: anonymous batches keep working.
    const anonymous = await api.post('/fetch/batch', { urls: [`${origin}/a`] });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.body.results[0].error, undefined);

    await proxy.resume();
    const back = await api.request('POST', '/fetch/batch', { urls: [`${origin}/c`] }, withKey(apiKey));
    assert.equal(back.status, 200, back.text);
  });

  test('the database lost in the middle of a batch: that URL is a 503 store_unavailable entry, never a 500', async (t) => {
    const setup = await outage(t);
    if (!setup) return;
    const { api, proxy, apiKey, origin } = setup;
    const batch = await api.request(
      'POST',
      '/fetch/batch',
      { urls: [`${origin}/cut/batch`], use_cache: false },
      withKey(apiKey),
    );
    assert.equal(batch.status, 200, batch.text);
    const [entry] = batch.body.results;
    assert.deepEqual([entry.error?.status, entry.error?.code], [503, 'store_unavailable'], JSON.stringify(entry));
    assert.match(entry.error.detail, /account store is unavailable/);
    await proxy.resume();
  });

  test('the database lost in the middle of an MCP tool call: the tool result is 503 store_unavailable', async (t) => {
    const setup = await outage(t);
    if (!setup) return;
    const { api, proxy, apiKey, origin } = setup;
    const client = await connectHttp(t, api.base, withKey(apiKey));
    const single = await client.callTool({
      name: 'fetch_url',
      arguments: { url: `${origin}/cut/one`, use_cache: false },
    });
    assert.equal(single.isError, true);
    assert.match(textOf(single), /^Error 503 store_unavailable: the account store is unavailable/);
    await proxy.resume();
    const many = await client.callTool({
      name: 'fetch_multiple',
      arguments: { urls: [`${origin}/cut/many`], use_cache: false },
    });
    assert.match(JSON.stringify(many.structuredContent), /"status":503,"code":"store_unavailable"/);
    await proxy.resume();
    const fine = await client.callTool({ name: 'fetch_url', arguments: { url: `${origin}/fine` } });
    assert.equal(fine.isError, undefined, textOf(fine));
  });

  test('OAuth while the database is gone: the endpoints answer 503 with Retry-After, a token on /mcp too; then back', async (t) => {
    const env = await databaseEnv(t, postgres);
    if (!env) return;
    const proxy = await startCuttableProxy(new URL(env.DATABASE_URL!));
    t.after(() => proxy.close());
    const target = new URL(env.DATABASE_URL!);
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    const smtp = await startSmtpServer();
    t.after(() => smtp.close());
    const sites = await startClientSite();
    t.after(() => sites.close());
    const api = await buildTestApp(t, { DATABASE_URL: target.href, SMTP_URL: smtp.url });
    const { email } = await signUp(api);
    const { cookie } = await signIn(api, smtp, email);
    const { client_id } = await registerClient(api, sites.redirectUri);
    const resource = `${api.services.config.PUBLIC_BASE_URL}/mcp`;
    const tokens = await connectClient(api, { clientId: client_id, redirectUri: sites.redirectUri, cookie, resource });

    await proxy.cut();
    const refused = [
      await postForm(api, '/oauth/token', {
        grant_type: 'refresh_token',
        client_id,
        refresh_token: tokens.refresh_token,
      }),
      await api.request('POST', '/oauth/register', { redirect_uris: [sites.redirectUri] }),
      await postForm(api, '/oauth/revoke', { client_id, token: tokens.access_token }),
    ];
    for (const res of refused) {
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.error, 'server_error');
      assert.equal(res.headers.get('retry-after'), '5');
    }
    const mcp = await api.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        ...MCP_HEADERS,
        authorization: `Bearer ${tokens.access_token}`,
      },
    );
    assert.equal(mcp.status, 503, mcp.text);
    assert.equal(mcp.body.code, 'store_unavailable');

    await proxy.resume();
    const refreshed = await postForm(api, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.status, 200, refreshed.text);
  });
});
