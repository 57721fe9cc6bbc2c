// GET /estimate: a GET of at most 64 KB as sent, ranged and accepting gzip (whole page counted, or a sample
// extrapolated), HEAD when ranges are refused, no Content-Length, and exact counts from the cache.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SAMPLE_BYTES, TOKENS_PER_BYTE } from '../../src/services/estimate.js';
import { gzipSync } from 'node:zlib';
import { SCRIPT_TAIL_HTML, SCRIPTED_LONG_HTML } from '../helpers/fixture-site.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

const estimate = (url: string) => api.get(`/estimate?url=${encodeURIComponent(url)}`);
const scriptedBytes = Buffer.byteLength(SCRIPTED_LONG_HTML);

test('a page within 64 KB is counted as a fetch would count it, and nothing is cached', async () => {
  for (const path of ['/article', '/ranged/article']) {
    const url = site.url(path);
    const res = await estimate(url);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.source, 'range');
    assert.equal(res.body.method, 'whole');
    assert.equal(res.body.confident, true);
    assert.equal((await api.get(`/cache?url=${encodeURIComponent(url)}`)).body.cached, false, 'nothing was cached');
    const fetched = await api.post('/fetch', { url });
    assert.equal(res.body.estimated_tokens, fetched.body.metadata.total_tokens);
  }
});

test('a longer page: its first 64 KB extrapolated to the length in Content-Range', async () => {
  assert.ok(scriptedBytes > 2 * SAMPLE_BYTES);
  const url = site.url('/ranged/scripted');
  const res = await estimate(url);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.source, 'range');
  assert.equal(res.body.method, 'sample');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.content_length, scriptedBytes);
  const actual = (await api.post('/fetch', { url })).body.metadata.total_tokens;
  const ratio = res.body.estimated_tokens / actual;
  assert.ok(ratio > 0.5 && ratio < 2, `estimate ${res.body.estimated_tokens}, actual ${actual}`);
});

test('a page sent gzipped is read whole when its compressed body fits in 64 KB', async () => {
  const url = site.url('/gzipped/article');
  const res = await estimate(url);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.source, 'range');
  assert.equal(res.body.method, 'whole_compressed');
  assert.equal(res.body.confident, true);
  const fetched = await api.post('/fetch', { url });
  assert.equal(res.body.estimated_tokens, fetched.body.metadata.total_tokens);
});

test('past 64 KB compressed: what the first 64 KB as sent decode to, the length as sent', async () => {
  const sent = gzipSync(SCRIPT_TAIL_HTML).length;
  assert.ok(sent > 2 * SAMPLE_BYTES, `${sent} bytes gzipped`);
  const url = site.url('/gzipped/script-tail');
  const res = await estimate(url);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.method, 'sample_compressed');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.content_length, sent);
  const actual = (await api.post('/fetch', { url })).body.metadata.total_tokens;
  const ratio = res.body.estimated_tokens / actual;
  assert.ok(ratio > 0.7 && ratio < 1.3, `estimate ${res.body.estimated_tokens}, actual ${actual}`);
});

test('ranges refused: HEAD and the length times a ratio', async () => {
  const res = await estimate(site.url('/range-refused'));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.source, 'head');
  assert.equal(res.body.method, 'length');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.content_length, scriptedBytes);
  assert.equal(res.body.estimated_tokens, Math.round(scriptedBytes * TOKENS_PER_BYTE.html));
});

test('no Content-Length: confident false past 64 KB; a shorter page was read whole, so its length is known', async () => {
  const res = await estimate(site.url('/big'));
  assert.equal(res.status, 200);
  assert.equal(res.body.method, 'sample');
  assert.equal(res.body.confident, false);
  assert.equal(res.body.content_length, null);
  assert.ok(res.body.estimated_tokens > 0);
  const short = await estimate(site.url('/nolength'));
  assert.equal(short.body.method, 'whole');
  assert.equal(short.body.confident, true);
});

test('a cached URL gets its exact count', async () => {
  const url = site.url('/long');
  const fetched = await api.post('/fetch', { url });
  const res = await estimate(url);
  assert.equal(res.body.source, 'cache');
  assert.equal(res.body.method, 'cache');
  assert.equal(res.body.confident, true);
  assert.equal(res.body.estimated_tokens, fetched.body.metadata.total_tokens);
});

test('a missing page is 502 upstream_status', async () => {
  const res = await estimate(site.url('/status/404'));
  assert.equal(res.status, 502);
  assert.equal(res.body.code, 'upstream_status');
  assert.equal(res.body.upstream_status, 404);
});

test('an archive is 415 unsupported_content, as /fetch answers, without reading its body', async () => {
  const res = await estimate(site.url('/archive.zip'));
  assert.equal(res.status, 415, res.text);
  assert.equal(res.body.code, 'unsupported_content');
  assert.match(res.body.detail, /application\/zip/);
});
