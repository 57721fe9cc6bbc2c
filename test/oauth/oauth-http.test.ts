// The OAuth authorization server of POST /mcp over plain HTTP: metadata, registration by RFC 7591 and by metadata
// document, the code flow with PKCE and consent, tokens on /mcp billed to the account under the client's name,
// refresh rotation, revocation, and the RFC's error for every malformed or refused request (never a 500).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signIn, signUp } from '../helpers/accounts.js';
import {
  authorize,
  connectClient,
  consent,
  pkcePair,
  postForm,
  registerClient,
  startClientSite,
  type ClientSite,
} from '../helpers/oauth.js';
import { startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { UNUSED_CLIENT_MS } from '../../src/oauth/clients.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

const HOUR = 3_600_000;
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('OAuth for the remote MCP endpoint, over HTTP', () => {
  let api: TestApp;
  let smtp: SmtpSink;
  let client: ClientSite;
  let site: FixtureSite;
  let cookie: string;
  let accountKey: string;
  let offset = 0;
  const clock = { now: () => Date.now() + offset };

  before(async () => {
    [smtp, client, site] = await Promise.all([startSmtpServer(), startClientSite(), startFixtureSite()]);
    api = await buildTestApp(
      { after },
      { SMTP_URL: smtp.url, FETCH_ALLOW_PRIVATE_NETWORKS: '0', PUBLIC_BASE_URL: 'http://fetchdown.test' },
      // 127.0.0.1 stands for the public internet (the client's site, the fixture pages); 10.0.0.0/8 stays private.
      { clock, addresses: { isBlocked: (ip) => ip !== '127.0.0.1' } },
    );
    const { email, apiKey } = await signUp(api);
    accountKey = apiKey;
    ({ cookie } = await signIn(api, smtp, email));
  });
  after(async () => {
    await Promise.all([smtp?.close(), client?.close(), site?.close()]);
  });

  const RESOURCE = 'http://fetchdown.test/mcp';

  const register = (name?: string) => registerClient(api, client.redirectUri, name);
  const connect = (clientId: string) =>
    connectClient(api, { clientId, redirectUri: client.redirectUri, cookie, resource: RESOURCE });

  const callMcp = (token: string, body: object = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
    api.request('POST', '/mcp', body, { ...MCP_HEADERS, authorization: `Bearer ${token}` });

  test('metadata: the protected resource names its authorization server, which names its endpoints', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await api.get(path);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.authorization_servers, ['http://fetchdown.test']);
      assert.equal(res.body.resource, RESOURCE);
    }
    const as = await api.get('/.well-known/oauth-authorization-server');
    assert.equal(as.status, 200);
    assert.equal(as.body.token_endpoint, 'http://fetchdown.test/oauth/token');
    assert.deepEqual(as.body.code_challenge_methods_supported, ['S256']);
    assert.equal(as.body.client_id_metadata_document_supported, true);
  });

  test('POST /mcp without credentials is 401 with the header that starts an MCP client sign-in', async () => {
    const res = await api.request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, MCP_HEADERS);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'key_required');
    assert.match(
      res.headers.get('www-authenticate')!,
      /^Bearer resource_metadata="http:\/\/fetchdown\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const withKey = await api.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        ...MCP_HEADERS,
        authorization: `Bearer ${accountKey}`,
      },
    );
    assert.equal(withKey.status, 200, 'an API key is accepted as a bearer token too');
  });

  test('registration makes a public client (no secret is kept); the code flow gives tokens that call tools', async () => {
    const registered = await register();
    assert.equal(registered.token_endpoint_auth_method, 'none');
    assert.equal(registered.client_secret, undefined);
    const tokens = await connect(registered.client_id);
    assert.match(tokens.access_token, /^fd_oat_/);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'fetch search');

    const called = await callMcp(tokens.access_token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'fetch_url', arguments: { url: site.url('/article') } },
    });
    assert.equal(called.status, 200, called.text);
    assert.equal(called.body.result.isError, undefined, called.text);
    await api.services.accounts.credits.flush();
    const row = await api.services.store.db
      .selectFrom('ledger')
      .selectAll()
      .where('client_id', '=', registered.client_id)
      .executeTakeFirst();
    assert.ok(row, 'the ledger row names the client');
    assert.equal(row.operation, 'fetch');
    assert.ok(row.credits_millis > 0);

    const apps = await api.request('GET', '/auth/apps', undefined, { cookie });
    assert.equal(apps.status, 200, apps.text);
    const app = apps.body.apps.find((a: { client_id: string }) => a.client_id === registered.client_id);
    assert.equal(app.client_name, 'Test Agent');
    assert.ok(app.last_used_at, 'the connection shows its last use');
  });

  test("a crawl started by a connected application names it, as its pages' ledger rows do", async () => {
    const { client_id } = await register('Crawling Agent');
    const tokens = await connect(client_id);
    const tool = async (name: string, args: object) => {
      const res = await callMcp(tokens.access_token, {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result.isError, undefined, res.text);
      return res.body.result.structuredContent;
    };
    const { id } = await tool('crawl_site', { url: site.url('/article'), limit: 1, sitemap: 'skip' });
    while (['queued', 'running'].includes((await tool('crawl_status', { id })).status))
      await new Promise((resolve) => setTimeout(resolve, 100));
    const crawl = await api.services.store.db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst();
    assert.equal(crawl?.client_id, client_id);
    await api.services.accounts.credits.flush();
    const rows = await api.services.store.db
      .selectFrom('ledger')
      .select('operation')
      .where('client_id', '=', client_id)
      .where('operation', '=', 'crawl')
      .execute();
    assert.equal(rows.length, 1, 'the page read by the crawl is billed under the client');
  });

  test('a connection the user allowed only fetch cannot search', async () => {
    const { client_id } = await register('Fetch Only');
    const tokens = await connectClient(api, {
      clientId: client_id,
      redirectUri: client.redirectUri,
      cookie,
      resource: RESOURCE,
      scope: 'fetch',
    });
    assert.equal(tokens.scope, 'fetch');
    const res = await callMcp(tokens.access_token, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'search_and_fetch', arguments: { query: 'tomatoes' } },
    });
    assert.equal(res.body.result.isError, true);
    assert.match(res.body.result.content[0].text, /^Error 403 insufficient_scope: /);
  });

  test('codes and tokens are stored as SHA-256 only: no table holds one as given', async () => {
    const { client_id } = await register('Stored Hashed');
    const { verifier, challenge } = pkcePair();
    const asked = await authorize(api, {
      response_type: 'code',
      client_id,
      redirect_uri: client.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = (await consent(api, asked.location!, cookie)).searchParams.get('code')!;
    const exchanged = await postForm(api, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id,
      code,
      code_verifier: verifier,
    });
    const secrets = [code, exchanged.body.access_token, exchanged.body.refresh_token] as string[];
    const { db } = api.services.store;
    const tables = await Promise.all([
      db.selectFrom('oauth_authorizations').selectAll().execute(),
      db.selectFrom('oauth_tokens').selectAll().execute(),
      db.selectFrom('oauth_grants').selectAll().execute(),
      db.selectFrom('oauth_clients').selectAll().execute(),
    ]);
    const stored = JSON.stringify(tables);
    for (const secret of secrets) {
      assert.ok(!stored.includes(secret), 'a secret is stored as given');
      assert.ok(stored.includes(createHash('sha256').update(secret).digest('hex')), 'its hash is what is kept');
    }
  });

  test('refresh tokens rotate; an old one presented again revokes the connection', async () => {
    const { client_id } = await register();
    const tokens = await connect(client_id);
    const refreshed = await postForm(api, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token);
    assert.equal((await callMcp(refreshed.body.access_token)).status, 200);

    const replayed = await postForm(api, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(replayed.status, 400);
    assert.equal(replayed.body.error, 'invalid_grant');
    assert.equal((await callMcp(refreshed.body.access_token)).status, 401, 'the whole connection is revoked');
  });

  test('an access token expires; revocation ends the connection at once', async (t) => {
    t.after(() => (offset = 0));
    const { client_id } = await register();
    const tokens = await connect(client_id);
    offset += 2 * HOUR;
    const expired = await callMcp(tokens.access_token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, 'invalid_access_token');
    assert.match(expired.headers.get('www-authenticate')!, /error="invalid_token"/);

    const refreshed = await postForm(api, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    const revoked = await postForm(api, '/oauth/revoke', { client_id, token: refreshed.body.refresh_token });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await callMcp(refreshed.body.access_token)).status, 401);
  });

  test('a registered client nobody connected is deleted a month on, when another registers; a used one stays', async (t) => {
    t.after(() => (offset = 0));
    const unused = await register('Never Connected');
    const used = await register('Connected');
    await connect(used.client_id);
    const asks = (clientId: string) =>
      authorize(api, {
        client_id: clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        resource: RESOURCE,
      });
    offset += UNUSED_CLIENT_MS - HOUR;
    await register('Another');
    assert.equal((await asks(unused.client_id)).status, 302, 'kept while under a month old');
    offset += 2 * HOUR;
    await register('Another');
    const gone = await asks(unused.client_id);
    assert.equal(gone.status, 400);
    assert.equal(gone.body.error, 'invalid_client');
    assert.equal((await asks(used.client_id)).status, 302);
  });

  test('the dashboard disconnects an application', async () => {
    const { client_id } = await register('To Disconnect');
    const tokens = await connect(client_id);
    const apps = await api.request('GET', '/auth/apps', undefined, { cookie });
    const app = apps.body.apps.find((a: { client_id: string }) => a.client_id === client_id);
    const gone = await api.request('DELETE', `/auth/apps/${app.id}`, undefined, { cookie });
    assert.equal(gone.status, 200, gone.text);
    assert.equal((await callMcp(tokens.access_token)).status, 401);
    const again = await api.request('DELETE', `/auth/apps/${app.id}`, undefined, { cookie });
    assert.equal(again.status, 404);
  });

  test('a client named by its metadata document: read once through the guard, its name on the consent page', async () => {
    client.document = {
      client_id: client.documentUrl,
      client_name: 'Document Agent',
      redirect_uris: [client.redirectUri],
      token_endpoint_auth_method: 'none',
    };
    const tokens = await connect(client.documentUrl);
    assert.equal((await callMcp(tokens.access_token)).status, 200);
    assert.equal(client.documentReads, 1, 'the document is kept, not read on every request');
    const apps = await api.request('GET', '/auth/apps', undefined, { cookie });
    assert.ok(apps.body.apps.some((a: { client_name: string }) => a.client_name === 'Document Agent'));
  });

  test('the failures: wrong verifier, reused code, another resource, unregistered redirect, private metadata URL', async () => {
    const { client_id } = await register();
    const { verifier, challenge } = pkcePair();
    const base = {
      response_type: 'code',
      client_id,
      redirect_uri: client.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const asked = await authorize(api, base);
    const code = (await consent(api, asked.location!, cookie)).searchParams.get('code')!;
    const exchange = (extra: Record<string, string>) =>
      postForm(api, '/oauth/token', { grant_type: 'authorization_code', client_id, code, ...extra });

    const wrong = await exchange({ code_verifier: pkcePair().verifier });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const otherResource = await exchange({ code_verifier: verifier, resource: 'https://elsewhere.example/mcp' });
    assert.equal(otherResource.status, 400);
    assert.equal(otherResource.body.error, 'invalid_target');
    const first = await exchange({ code_verifier: verifier });
    assert.equal(first.status, 200, first.text);
    const reused = await exchange({ code_verifier: verifier });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_grant');
    assert.equal((await callMcp(first.body.access_token)).status, 401, 'a replayed code revokes what it gave');

    const elsewhere = await authorize(api, { ...base, resource: 'https://elsewhere.example/mcp', state: 's' });
    assert.equal(elsewhere.status, 302);
    const refused = new URL(elsewhere.location!);
    assert.equal(refused.searchParams.get('error'), 'invalid_target');
    assert.equal(refused.searchParams.get('state'), 's');

    const unregistered = await authorize(api, { ...base, redirect_uri: 'https://attacker.example/callback' });
    assert.equal(unregistered.status, 400);
    assert.equal(unregistered.body.error, 'invalid_request');

    const privateDocument = await authorize(api, { ...base, client_id: 'http://10.0.0.1/client.json' });
    assert.equal(privateDocument.status, 400);
    assert.equal(privateDocument.body.error, 'invalid_client');
    const httpsPrivate = await authorize(api, { ...base, client_id: 'https://10.1.2.3/oauth/client.json' });
    assert.equal(httpsPrivate.status, 400);
    assert.equal(httpsPrivate.body.error, 'invalid_client');
    assert.match(httpsPrivate.body.error_description, /could not be read/);

    const plainS = await authorize(api, { ...base, code_challenge_method: 'plain', state: 'p' });
    assert.equal(new URL(plainS.location!).searchParams.get('error'), 'invalid_request', 'S256 only');
  });

  test('every malformed request gets the RFC error code in JSON, never a 500', async () => {
    const cases: [string, string, string | object, string, string][] = [
      ['POST', '/oauth/token', 'grant_type=password&client_id=x', 'form', 'invalid_client'],
      ['POST', '/oauth/token', 'client_id=%00', 'form', 'invalid_client'],
      ['POST', '/oauth/token', '', 'form', 'invalid_request'],
      ['POST', '/oauth/token', '{"grant_type":', 'application/json', 'invalid_request'],
      ['POST', '/oauth/register', '{"redirect_uris":', 'application/json', 'invalid_request'],
      [
        'POST',
        '/oauth/register',
        { redirect_uris: ['javascript:alert(1)'] },
        'application/json',
        'invalid_client_metadata',
      ],
      [
        'POST',
        '/oauth/register',
        { redirect_uris: ['http://example.com/cb'] },
        'application/json',
        'invalid_client_metadata',
      ],
      ['POST', '/oauth/register', { redirect_uris: [] }, 'application/json', 'invalid_client_metadata'],
      ['POST', '/oauth/revoke', 'client_id=nobody&token=t', 'form', 'invalid_client'],
      ['GET', '/oauth/authorize?client_id=nobody', '', 'form', 'invalid_client'],
      ['GET', '/oauth/authorize', '', 'form', 'invalid_request'],
      ['DELETE', '/oauth/token', '', 'form', 'method_not_allowed'],
    ];
    const { client_id } = await register();
    cases.push([
      'POST',
      '/oauth/token',
      `grant_type=password&client_id=${client_id}`,
      'form',
      'unsupported_grant_type',
    ]);
    cases.push([
      'POST',
      '/oauth/token',
      `grant_type=refresh_token&client_id=${client_id}&refresh_token=x`,
      'form',
      'invalid_grant',
    ]);
    for (const [method, path, body, type, error] of cases) {
      const res = await api.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : body, {
        'content-type': type === 'form' ? 'application/x-www-form-urlencoded' : type,
      });
      assert.ok(
        res.status >= 400 && res.status < 500,
        `${method} ${path} ${JSON.stringify(body)}: ${res.status} ${res.text}`,
      );
      assert.equal(res.body?.error, error, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
    }
  });
});
