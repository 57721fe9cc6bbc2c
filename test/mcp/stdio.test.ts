// The MCP server over stdio, spawned as the README configures it (node bin/fetchdown.mjs mcp), driven by the SDK's
// Client: local mode (the pipeline in the child process) and remote mode (calls to the HTTP API with the key).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT, connectStdio, textOf } from '../helpers/mcp-client.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { signUp } from '../helpers/accounts.js';
import { spawnTracked, waitForOutput } from '../helpers/children.js';
import { buildTestApp } from '../helpers/test-app.js';
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
after(async () => {
  await Promise.all([site.close(), searxng.close()]);
});
searxng.setHits([
  { title: 'Tomatoes', url: site.url('/article'), snippet: 'Growing tomatoes' },
  { title: 'Guide', url: site.url('/long'), snippet: 'A long guide' },
]);

const LOCAL_ENV = {
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  CACHE_URL: 'memory://',
  SEARCH_PROVIDER: 'searxng',
  SEARCH_BASE_URL: searxng.origin,
};

test('local mode: the tools listed, the four fetch tools each callable, errors as tool results', async (t) => {
  const { client, stderr } = await connectStdio(t, LOCAL_ENV);
  await checkToolList(client);
  await checkFetchUrl(client, site);
  await checkEstimate(client, site);
  await checkFetchMultiple(client, site);
  await checkSearch(client);
  await checkErrors(client, site);
  assert.match(stderr(), /ready on stdio \(local mode/);
});

test('local mode without a search provider: search_and_fetch says which variables to set', async (t) => {
  const { client } = await connectStdio(t, { FETCH_ALLOW_PRIVATE_NETWORKS: '1', CACHE_URL: 'memory://' });
  const result = await client.callTool({ name: 'search_and_fetch', arguments: { query: 'anything' } });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /Error 503 search_not_configured: .*SEARCH_PROVIDER.*SEARCH_BASE_URL.*SEARCH_API_KEY/);
});

test('remote mode: every call goes to the API with X-Service-Key, and its errors come back unchanged', async (t) => {
  const api = await buildTestApp(t, { SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin });
  // A recording hop in front of the API, to see what the MCP server sends.
  const seen: { method: string; path: string; key: string | undefined }[] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise
  const proxy = createServer(async (req, res) => {
    seen.push({ method: req.method!, path: req.url!, key: req.headers['x-service-key'] as string | undefined });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(api.base + req.url, {
      method: req.method,
      headers: { 'content-type': 'application/json', 'x-service-key': String(req.headers['x-service-key']) },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  t.after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const apiUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  // The child has no private-network permission of its own: only the API fetches.
  const { apiKey } = await signUp(api);
  const { client, stderr } = await connectStdio(t, { FETCHDOWN_API_URL: apiUrl, FETCHDOWN_API_KEY: apiKey });
  await checkFetchUrl(client, site);
  await checkEstimate(client, site);
  await checkFetchMultiple(client, site);
  await checkSearch(client, 3); // billed to a free account, whose allowance counts the pages a search pays for
  assert.deepEqual([...new Set(seen.map((s) => `${s.method} ${s.path.split('?')[0]}`))].sort(), [
    'GET /estimate',
    'POST /fetch',
    'POST /fetch/batch',
    'POST /search',
  ]);
  assert.ok(
    seen.every((s) => s.key === apiKey),
    'every call carries the key',
  );

  const missing = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/status/404') } });
  assert.equal(missing.isError, true);
  const direct = await api.request('POST', '/fetch', { url: site.url('/status/404') }, { 'x-service-key': apiKey });
  // Unchanged but for the request id, which is each request's own (the tool's is the API's, passed through).
  const passed = JSON.parse(textOf(missing).slice(textOf(missing).indexOf('\n\n{') + 2)) as Record<string, unknown>;
  assert.match(String(passed.request_id), /^[0-9a-f-]{36}$/);
  assert.ok(
    JSON.stringify({ ...passed, request_id: undefined }) ===
      JSON.stringify({ status: 502, ...direct.body, request_id: undefined }),
    'the HTTP error body, unchanged',
  );
  assert.match(stderr(), /remote mode, calling http:\/\/127\.0\.0\.1/);
});

test('remote mode with the API down: an error result naming FETCHDOWN_API_URL', async (t) => {
  const { client } = await connectStdio(t, { FETCHDOWN_API_URL: 'http://127.0.0.1:9', FETCHDOWN_API_KEY: 'k' });
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: 'https://example.com/' } });
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    /Error 502 upstream_unreachable: the Fetchdown API at http:\/\/127\.0\.0\.1:9 could not be reached/,
  );
  assert.match(textOf(result), /FETCHDOWN_API_URL/);
});

test('stdout carries nothing but JSON-RPC; logs go to stderr', async (t) => {
  const server = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'mcp'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CACHE_URL: 'memory://', FETCH_ALLOW_PRIVATE_NETWORKS: '1' },
  });
  const send = (message: object) => server.child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'fetch_url', arguments: { url: site.url('/article') } },
  });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fetch_url', arguments: { url: 42 } } });
  // Answers come in completion order: the fetch (id 3) may finish after the refused call (id 4).
  await waitForOutput(server, /"id":3[\s\S]*"id":4|"id":4[\s\S]*"id":3/);
  server.child.stdin!.end();
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0, 'closing stdin ends the server cleanly');
  const stdout = server.stdout();
  const stderr = server.output();
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 4, stdout);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
  assert.match(stderr, /fetchdown mcp: ready on stdio/);
  assert.match(stderr, /closing \(stdin closed\)/);
});

test('closing stdin ends the server at once, abandoning a call still running', { timeout: 120_000 }, async (t) => {
  // A site whose page never answers, and a fetch deadline of an hour: only abandoning the call lets the process end.
  // Its own server, with Node's default keep-alive (5 s): the fixture site's 1 s makes undici drop a request on a
  // reused connection as soon as the client closes, which would hide a server that waits for its calls to end.
  const seen: string[] = [];
  const never = createServer((req, res) => {
    seen.push(req.url!);
    if (req.url === '/robots.txt') res.writeHead(404).end();
  });
  never.listen(0, '127.0.0.1');
  await once(never, 'listening');
  t.after(() => {
    never.closeAllConnections();
    never.close();
  });
  const page = `http://127.0.0.1:${(never.address() as AddressInfo).port}/page`;
  const server = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'mcp'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CACHE_URL: 'memory://',
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      FETCH_TIMEOUT_MS: '3600000',
    },
  });
  const send = (message: object) => server.child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fetch_url', arguments: { url: page } } });
  while (!seen.includes('/page')) await sleep(20);
  server.child.stdin!.end();
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
  assert.doesNotMatch(server.stdout(), /"id":2/, 'the call was abandoned, not answered');
  assert.match(server.output(), /closing \(stdin closed\)/);
});
