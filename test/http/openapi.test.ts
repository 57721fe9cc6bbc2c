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

test('GET /openapi.json describes the fetch routes with their limits', async () => {
  const res = await api.get('/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  for (const [path, method] of [['/fetch', 'post'], ['/fetch/batch', 'post'], ['/estimate', 'get'], ['/cache', 'get'], ['/cache', 'delete'], ['/health', 'get']] as const) {
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
