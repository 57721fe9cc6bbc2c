// POST /fetch/batch: input order, per-URL errors, one fetch per identical URL, and real concurrency.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

test('results come in input order; a failing URL gets its own error', async () => {
  const urls = [site.url('/article'), site.url('/status/404'), site.url('/long'), site.url('/image.png')];
  const res = await api.post('/fetch/batch', { urls, max_tokens_each: 100 });
  assert.equal(res.status, 200);
  const results = res.body.results;
  assert.equal(results.length, 4);
  assert.equal(results[0].url, urls[0]);
  assert.equal(results[0].metadata.title, 'Growing Tomatoes on a Balcony');
  assert.ok(results[0].metadata.token_count <= 100);
  assert.deepEqual(Object.keys(results[1]).sort(), ['error', 'url']);
  assert.equal(results[1].url, urls[1]);
  assert.equal(results[1].error.status, 502);
  assert.equal(results[1].error.code, 'upstream_status');
  assert.match(results[1].error.detail, /404/);
  assert.equal(results[2].metadata.title, 'A Long Guide');
  assert.equal(results[2].metadata.truncated, true);
  // The fixture's PNG is its signature alone: nothing for OCR to decode.
  assert.equal(results[3].error.status, 422);
  assert.equal(results[3].error.code, 'unreadable_document');
});

test('identical URLs are fetched once', async () => {
  const url = site.url(`/unique/batch-dup-${Date.now()}`);
  const res = await api.post('/fetch/batch', { urls: [url, url, url], use_cache: false });
  assert.equal(res.status, 200);
  assert.equal(res.body.results.length, 3);
  assert.equal(site.hits(new URL(url).pathname), 1);
  for (const r of res.body.results) assert.equal(r.url, url);
});

test('20 slow pages are fetched concurrently', async () => {
  const urls = Array.from({ length: 20 }, (_, i) => site.url(`/delay/300/batch-${i}`));
  const res = await api.post('/fetch/batch', { urls });
  assert.equal(res.status, 200);
  assert.ok(res.body.results.every((r: any) => r.metadata?.title?.startsWith('Delayed')));
  // Concurrency shown by the site's own count of requests in flight at once, not by a clock.
  assert.ok(site.maxConcurrent(`/delay/300/batch-`) >= 10);
});

test('a global limit bounds upstream sockets across batches', async (t) => {
  const limited = await buildTestApp(t, { FETCH_CONCURRENCY: '4' });
  const stamp = Date.now();
  const batches = Array.from({ length: 3 }, (_, b) =>
    limited.post('/fetch/batch', {
      urls: Array.from({ length: 5 }, (_, i) => site.url(`/delay/100/limit-${stamp}-${b}-${i}`)),
    }),
  );
  const results = await Promise.all(batches);
  for (const r of results) assert.equal(r.status, 200);
  assert.equal(site.maxConcurrent(`/delay/100/limit-${stamp}`), 4);
});
