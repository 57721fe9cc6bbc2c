// The MCP server over Streamable HTTP at POST /mcp, driven by the SDK's Client, plus the transport's edges.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { buildTestApp } from '../helpers/test-app.js';
import { signUp, withKey } from '../helpers/accounts.js';
import {
  checkErrors,
  checkEstimate,
  checkFetchMultiple,
  checkFetchUrl,
  checkSearch,
  checkToolList,
} from './tools.shared.js';

// Set up at the top level: on Node 20 an `after` registered inside `before` runs as soon as that hook ends.
const site = await startFixtureSite();
const searxng = await startSearxngStandin([]);
const api = await buildTestApp({ after }, { SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin });
after(async () => {
  await Promise.all([site.close(), searxng.close()]);
});
searxng.setHits([
  { title: 'Tomatoes', url: site.url('/article'), snippet: 'Growing tomatoes' },
  { title: 'Guide', url: site.url('/long'), snippet: 'A long guide' },
]);

test('the tools over POST /mcp: the list, the four fetch tools each callable, errors as tool results', async (t) => {
  const client = await connectAsNewAccount(t, api);
  assert.equal(client.getServerVersion()?.name, 'fetchdown');
  assert.equal(client.getServerVersion()?.version, '1.0.0');
  await checkToolList(client);
  await checkFetchUrl(client, site);
  await checkEstimate(client, site);
  await checkFetchMultiple(client, site);
  await checkSearch(client, 3);
  await checkErrors(client, site);
});

test('the HTTP transport shares the server-wide cache with /fetch', async (t) => {
  const url = site.url(`/unique/mcp-cache-${Date.now()}`);
  await api.post('/fetch', { url });
  const client = await connectAsNewAccount(t, api);
  const result = await client.callTool({ name: 'fetch_url', arguments: { url } });
  assert.equal((result.structuredContent as any).cache.hit, true, textOf(result));
  assert.equal(site.hits(new URL(url).pathname), 1);
});

test('a body that is not JSON gets a JSON-RPC parse error', async () => {
  const res = await api.request('POST', '/mcp', '{"jsonrpc": "2.0", "id": 1, "method":', {
    accept: 'application/json, text/event-stream',
    ...withKey((await signUp(api)).apiKey),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, -32700);
});

test('browsers may call /mcp from any origin: the preflight, and the headers a client reads on a 401 and a 200', async () => {
  const preflight = await api.request('OPTIONS', '/mcp', undefined, {
    origin: 'https://inspector.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(
    preflight.headers.get('access-control-allow-headers')!,
    /authorization.*content-type.*mcp-protocol-version/,
  );
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const accept = { accept: 'application/json, text/event-stream', origin: 'https://inspector.example' };
  const refused = await api.request('POST', '/mcp', list, accept);
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('access-control-allow-origin'), '*');
  assert.match(refused.headers.get('access-control-expose-headers')!, /www-authenticate/);
  const answered = await api.request('POST', '/mcp', list, { ...accept, ...withKey((await signUp(api)).apiKey) });
  assert.equal(answered.status, 200);
  assert.equal(answered.headers.get('access-control-allow-origin'), '*');
});

test('GET and DELETE /mcp are 405: the endpoint is stateless', async () => {
  for (const method of ['GET', 'DELETE']) {
    const res = await api.request(method, '/mcp', undefined, withKey((await signUp(api)).apiKey));
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  }
});

test('/fetch keeps its own JSON parsing (the MCP parser is scoped to /mcp)', async () => {
  const res = await api.request('POST', '/fetch', '{"url": ');
  assert.equal(res.status, 422);
  assert.equal(res.body.detail[0].type, 'json_invalid');
});
