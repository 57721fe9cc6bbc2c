// GET /estimate: HEAD, the ranged-GET fallback, no Content-Length, and exact counts from the cache.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TOKENS_PER_BYTE } from '../../src/services/estimate.js';
import { ARTICLE_HTML, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FixtureSite;
let api: TestApp;
before(async () => {
  site = await startFixtureSite();
  api = await buildTestApp({ after });
});
after(() => site.close());

const estimate = (url: string) => api.get(`/estimate?url=${encodeURIComponent(url)}`);
const bytes = Buffer.byteLength(ARTICLE_HTML);

test('HEAD with Content-Length gives a confident estimate without the body', async () => {
  const url = site.url('/article');
  const res = await estimate(url);
  assert.equal(res.status, 200);
  assert.equal(res.body.source, 'head');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.content_length, bytes);
  assert.equal(res.body.estimated_tokens, Math.round(bytes * TOKENS_PER_BYTE.html));
  assert.equal((await api.get(`/cache?url=${encodeURIComponent(url)}`)).body.cached, false, 'nothing was fetched');
});

test('a refused HEAD falls back to a one-byte ranged GET', async () => {
  const res = await estimate(site.url('/head-refused'));
  assert.equal(res.status, 200);
  assert.equal(res.body.source, 'range');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.content_length, bytes);
});

test('no Content-Length → confident false', async () => {
  const res = await estimate(site.url('/nolength'));
  assert.equal(res.status, 200);
  assert.equal(res.body.confident, false);
  assert.equal(res.body.content_length, null);
});

test('a cached URL gets its exact count', async () => {
  const url = site.url('/long');
  const fetched = await api.post('/fetch', { url });
  const res = await estimate(url);
  assert.equal(res.body.source, 'cache');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.estimated_tokens, fetched.body.metadata.total_tokens);
});

test('a missing page is 502 upstream_status', async () => {
  const res = await estimate(site.url('/status/404'));
  assert.equal(res.status, 502);
  assert.equal(res.body.code, 'upstream_status');
  assert.equal(res.body.upstream_status, 404);
});

test('an image is 415 unsupported_content, as /fetch answers, without reading its body', async () => {
  const res = await estimate(site.url('/image.png'));
  assert.equal(res.status, 415, res.text);
  assert.equal(res.body.code, 'unsupported_content');
  assert.match(res.body.detail, /image\/png/);
});
