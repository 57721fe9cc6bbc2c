// The discovery documents (/spec, /.well-known/mcp.json, /llms.txt) and /openapi.json: content, consistency with
// the MCP server and the price list, and a description that validates against the OpenAPI 3.1 schema.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { TOOLS } from '../../src/contract/tools.js';
import { connectAsNewAccount } from '../helpers/mcp-client.js';
import { startServerProcess } from '../helpers/server-process.js';
import { freePort } from '../topology/children.js';
import { buildTestApp } from '../helpers/test-app.js';

const BASE = 'https://fetchdown.example';
const api = await buildTestApp({ after }, { PUBLIC_BASE_URL: `${BASE}/` });

test('GET /spec: summary, links, the tools, the operations, authentication and the price list', async () => {
  const res = await api.get('/spec');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const spec = res.body;
  assert.equal(spec.name, 'Fetchdown');
  assert.equal(spec.version, '1.0.0');
  assert.match(spec.summary, /Markdown/);
  assert.equal(spec.links.openapi, `${BASE}/openapi.json`);
  assert.equal(spec.links.mcp_manifest, `${BASE}/.well-known/mcp.json`);
  assert.deepEqual(
    spec.pages.integrations.map((i: { url: string }) => i.url),
    ['/claude', '/cursor', '/langchain'].map((p) => `${BASE}${p}`),
  );
  assert.equal(spec.pages.dashboard, `${BASE}/dashboard`);
  assert.deepEqual(
    spec.mcp.tools.map((t: any) => [t.name, t.description]),
    TOOLS.map((t) => [t.name, t.description]),
  );
  assert.equal(spec.mcp.transports['streamable-http'], `${BASE}/mcp`);
  assert.equal(spec.authentication.header, 'X-Service-Key');
  assert.match(spec.authentication.instructions, /X-Service-Key.*POST \/account\/signup/);
  const p = spec.pricing;
  assert.equal(p.credit_usd, 0.001);
  assert.deepEqual(p.route_credits, {
    html: 1,
    reader: 2,
    browser: 5,
    pdf: 2,
    ocr_page: 5,
    search_with_3_fetches: 15,
    search_each_further_result: 1,
  });
  assert.deepEqual(p.flat_rates_usd, { estimate_tokens: 0.0002, cache_hit: 0.0001, map: 0.001 });
  assert.equal(p.flat_rates_credits.map, 1);
  assert.deepEqual(
    p.packs.map((x: any) => [x.item_key, x.credits, x.price_usd]),
    [
      ['10k', 10000, 10],
      ['100k', 100000, 80],
      ['1m', 1000000, 600],
    ],
  );
  assert.deepEqual(
    p.plans.find((x: any) => x.item_key === 'starter'),
    { item_key: 'starter', monthly_credits: 20000, price_usd_per_month: 29 },
  );
  assert.deepEqual(
    p.plans.map((x: any) => x.item_key),
    ['free', 'starter', 'pro', 'scale'],
  );
  assert.deepEqual(spec.limits.search_num_results, { min: 1, max: 10, default: 3 });
  assert.deepEqual(spec.limits.map_links, { min: 1, max: 5000, default: 100 });
  const operations = spec.operations.map((o: { method: string; path: string }) => `${o.method} ${o.path}`);
  for (const operation of [
    'POST /map',
    'POST /crawl',
    'GET /crawl/{id}',
    'GET /crawl/{id}/errors',
    'DELETE /crawl/{id}',
    'GET /account/crawls',
  ])
    assert.ok(operations.includes(operation), operation);
  assert.match(spec.operations.find((o: { path: string }) => o.path === '/map').summary, /1 credit a call/);
});

test('GET /spec shows the plan allowances and anonymous access in force', async (t) => {
  const custom = await buildTestApp(t, { STARTER_MONTHLY_CREDITS: '25000', ANONYMOUS_ACCESS: '0' });
  const spec = (await custom.get('/spec')).body;
  assert.equal(spec.pricing.plans.find((x: any) => x.item_key === 'starter').monthly_credits, 25000);
  assert.equal(spec.authentication.anonymous_access, false);
  assert.match(spec.authentication.instructions, /refuse calls without a key/);
  assert.equal(spec.links.openapi, 'http://localhost:8080/openapi.json', 'PUBLIC_BASE_URL defaults to localhost');
});

test('GET /.well-known/mcp.json: name, version, transports, tools with input schemas, auth', async () => {
  const res = await api.get('/.well-known/mcp.json');
  assert.equal(res.status, 200);
  const manifest = res.body;
  assert.equal(manifest.name, 'fetchdown');
  assert.equal(manifest.version, '1.0.0');
  assert.match(manifest.description, /Markdown/);
  const http = manifest.transports.find((x: any) => x.type === 'streamable-http');
  assert.equal(http.url, `${BASE}/mcp`);
  const stdio = manifest.transports.find((x: any) => x.type === 'stdio');
  assert.deepEqual([stdio.command, ...stdio.args], ['npx', '-y', 'fetchdown', 'mcp']);
  assert.ok(stdio.env.some((e: any) => e.name === 'FETCHDOWN_API_KEY' && e.isSecret));
  assert.deepEqual(manifest.auth.name, 'X-Service-Key');
  assert.equal(manifest.auth.oauth.protected_resource_metadata, `${BASE}/.well-known/oauth-protected-resource/mcp`);
  assert.match(manifest.auth.instructions, /OAuth access token/);
  const search = manifest.tools.find((x: any) => x.name === 'search_and_fetch');
  assert.equal(search.inputSchema.properties.num_results.maximum, 10);
  assert.deepEqual(search.inputSchema.required, ['query']);
  assert.deepEqual(
    manifest.tools.map((x: any) => x.name),
    TOOLS.map((t) => t.name),
  );
  const crawl = manifest.tools.find((x: any) => x.name === 'crawl_site');
  assert.deepEqual([crawl.inputSchema.required, crawl.annotations.readOnlyHint], [['url'], false]);
  const status = manifest.tools.find((x: any) => x.name === 'crawl_status');
  assert.deepEqual(status.inputSchema.required, ['id']);
  assert.ok(stdio.env.some((e: any) => e.name === 'FETCHDOWN_API_URL' && /crawl tools need it/.test(e.description)));
});

test('the manifest lists exactly the tools the MCP server serves', async (t) => {
  const manifest = (await api.get('/.well-known/mcp.json')).body;
  const client = await connectAsNewAccount(t, api);
  const { tools } = await client.listTools();
  assert.deepEqual(JSON.parse(JSON.stringify(tools)), manifest.tools);
});

test('GET /llms.txt: text/plain in the llmstxt.org layout with absolute links', async () => {
  const res = await api.get('/llms.txt');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = res.text;
  assert.ok(text.startsWith('# Fetchdown\n\n> '), text.slice(0, 40));
  assert.equal(text.match(/^# /gm)?.length, 1, 'one H1');
  const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, ['Docs', 'Examples', 'Integrations', 'Optional']);
  // Every line after the first H2 is blank or a list item of the form "- [name](url): notes".
  const afterFirstH2 = text.slice(text.indexOf('\n## '));
  for (const line of afterFirstH2.split('\n')) {
    if (line === '' || line.startsWith('## ')) continue;
    assert.match(line, /^- \[[^\]]+\]\(https:\/\/fetchdown\.example\/[^)]*\)(: .+)?$/, line);
  }
  assert.match(text, /`POST \/map .*1 credit\)\. `POST \/crawl .*`GET \/crawl\/\{id\}`/);
  assert.match(text, /MCP tools: .*`map_site`, `crawl_site`, `crawl_status`/);
  for (const path of [
    '/spec',
    '/openapi.json',
    '/.well-known/mcp.json',
    '/examples',
    '/claude',
    '/cursor',
    '/langchain',
  ]) {
    assert.ok(text.includes(`(${BASE}${path})`), path);
  }
});

// The endpoints of the interface spec; each one the app serves must be described in /openapi.json.
const SPEC_ENDPOINTS: [string, string, string?][] = [
  ['post', '/fetch'],
  ['post', '/fetch/batch'],
  ['get', '/estimate'],
  ['post', '/search'],
  ['get', '/cache'],
  ['delete', '/cache'],
  ['post', '/account/signup'],
  ['get', '/account/me'],
  ['get', '/account/keys'],
  ['post', '/account/keys'],
  ['delete', '/account/keys/{key_id}', '/account/keys/1'],
  ['get', '/account/usage'],
  ['post', '/auth/login'],
  ['get', '/auth/verify'],
  ['post', '/auth/logout'],
  ['get', '/auth/whoami'],
  ['get', '/auth/keys'],
  ['post', '/auth/keys'],
  ['delete', '/auth/keys/{key_id}', '/auth/keys/1'],
  ['get', '/auth/usage'],
  ['post', '/billing/checkout'],
  ['post', '/billing/webhook'],
  ['get', '/billing/portal'],
  ['get', '/spec'],
  ['get', '/.well-known/mcp.json'],
  ['get', '/llms.txt'],
  ['get', '/admin/metrics'],
  ['get', '/examples'],
  ['get', '/examples/{slug}', '/examples/no-such-example'],
  ['get', '/'],
  ['get', '/dashboard'],
  ['get', '/health'],
  ['get', '/ready'],
  ['post', '/mcp'],
  ['post', '/map'],
  ['post', '/crawl'],
  ['get', '/crawl/{id}', '/crawl/cr_1'],
  ['get', '/crawl/{id}/errors', '/crawl/cr_1/errors'],
  ['delete', '/crawl/{id}', '/crawl/cr_1'],
  ['get', '/account/crawls'],
  ['get', '/auth/crawls'],
];

test('GET /openapi.json describes every spec endpoint the app serves', async () => {
  const doc = (await api.get('/openapi.json')).body;
  assert.equal(doc.info.version, '1.0.0');
  const served: string[] = [];
  for (const [method, path, probe] of SPEC_ENDPOINTS) {
    // Probes carry no body or credentials, so they are refused before doing anything; only "no route" counts as absent.
    const res = await api.request(method.toUpperCase(), probe ?? path);
    if (res.status === 404 && /^no route for/.test(String(res.body?.detail))) continue;
    served.push(`${method} ${path}`);
    assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is served but not in /openapi.json`);
  }
  for (const endpoint of [
    'post /search',
    'post /mcp',
    'get /spec',
    'get /.well-known/mcp.json',
    'get /llms.txt',
    'post /crawl',
    'get /account/crawls',
    'get /auth/crawls',
  ])
    assert.ok(served.includes(endpoint), endpoint);
  const search = doc.paths['/search'].post;
  const body = search.requestBody.content['application/json'].schema;
  assert.deepEqual([body.properties.query.minLength, body.properties.query.maxLength], [2, 500]);
  assert.deepEqual(
    [body.properties.num_results.minimum, body.properties.num_results.maximum, body.properties.num_results.default],
    [1, 10, 3],
  );
  assert.deepEqual(
    [
      body.properties.max_tokens_each.minimum,
      body.properties.max_tokens_each.maximum,
      body.properties.max_tokens_each.default,
    ],
    [100, 20000, 2000],
  );
  assert.equal(body.additionalProperties, false);
  for (const status of ['200', '422', '502', '503']) assert.ok(search.responses[status], `/search documents ${status}`);
  assert.ok(doc.paths['/llms.txt'].get.responses['200'].content['text/plain']);
});

test('GET /openapi.json is a valid OpenAPI 3.1 document (and the validator does reject a broken one)', async () => {
  const doc = (await api.get('/openapi.json')).body;
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.equal(validator.version, '3.1');
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  const broken = structuredClone(doc);
  broken.paths['/search'].post.responses = { 200: { content: {} } }; // a response without its required description
  const rejected = await new Validator().validate(broken);
  assert.equal(rejected.valid, false);
});

test('`PORT=… fetchdown serve` without PUBLIC_BASE_URL links to the port it serves, not 8080', async (t) => {
  const port = await freePort();
  const server = await startServerProcess(t, { PORT: String(port) });
  assert.equal(server.base, `http://127.0.0.1:${port}`);
  const spec = await fetch(`${server.base}/spec`).then((r) => r.json());
  assert.equal(spec.links.openapi, `http://localhost:${port}/openapi.json`);
  const llms = await fetch(`${server.base}/llms.txt`).then((r) => r.text());
  assert.ok(llms.includes(`http://localhost:${port}/`), llms);
  assert.ok(!llms.includes('localhost:8080'));
});
