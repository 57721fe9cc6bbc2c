// /health and /openapi.json: liveness, and a 3.1 description generated from the route schemas.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let api: TestApp;
before(async () => {
  api = await buildTestApp({ after });
});

test('GET /health is ok', async () => {
  const res = await api.get('/health');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok' });
});

test('GET /ready checks the database and the cache', async () => {
  const res = await api.get('/ready');
  assert.equal(res.status, 200);
  assert.equal(res.body.status, 'ok');
  assert.deepEqual(Object.keys(res.body.checks).sort(), ['cache', 'database']);
  assert.equal(res.body.checks.database.ok, true);
  assert.equal(res.body.checks.cache.ok, true);
});

test('GET /ready is 503 with the broken check named when the cache is unreachable', async (t) => {
  // Port 1 on loopback: nothing listens, so every connection to this "Redis" is refused.
  const broken = await buildTestApp(t, { CACHE_URL: 'redis://127.0.0.1:1' });
  const res = await broken.get('/ready');
  assert.equal(res.status, 503);
  assert.equal(res.body.status, 'unavailable');
  assert.equal(res.body.checks.cache.ok, false);
  assert.equal(typeof res.body.checks.cache.detail, 'string');
  assert.equal(res.body.checks.database.ok, true);
  assert.deepEqual((await broken.get('/health')).body, { status: 'ok' }, 'liveness does not depend on the cache');
});

test('GET /openapi.json describes the fetch routes with their limits', async () => {
  const res = await api.get('/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  for (const [path, method] of [
    ['/fetch', 'post'],
    ['/fetch/batch', 'post'],
    ['/estimate', 'get'],
    ['/cache', 'get'],
    ['/cache', 'delete'],
    ['/health', 'get'],
    ['/ready', 'get'],
  ] as const) {
    assert.ok(doc.paths[path]?.[method], `${method} ${path} documented`);
  }
  const body = doc.paths['/fetch'].post.requestBody.content['application/json'].schema;
  assert.equal(body.properties.url.maxLength, 2083);
  assert.equal(body.properties.url.minLength, 1);
  assert.deepEqual(body.properties.format.enum, ['markdown', 'text', 'json']);
  assert.equal(body.properties.max_tokens.minimum, 1);
  assert.deepEqual(body.required, ['url']);
  const batch = doc.paths['/fetch/batch'].post.requestBody.content['application/json'].schema;
  assert.equal(batch.properties.urls.maxItems, 20);
  assert.ok(doc.paths['/fetch'].post.responses['422']);
  assert.ok(doc.paths['/fetch'].post.responses['200'].content['application/json'].schema.properties.fetch_info);
});
