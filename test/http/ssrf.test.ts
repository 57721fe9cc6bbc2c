// With FETCH_ALLOW_PRIVATE_NETWORKS off, no spelling of a loopback address reaches the fixture site.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FixtureSite;
let api: TestApp;
let port: number;
before(async () => {
  site = await startFixtureSite();
  port = Number(new URL(site.origin).port);
  api = await buildTestApp({ after }, { FETCH_ALLOW_PRIVATE_NETWORKS: '0' });
});
after(() => site.close());

const spellings = () => [
  `http://127.0.0.1:${port}/article`,
  `http://localhost:${port}/article`,
  `http://LOCALHOST:${port}/article`,
  `http://127.1:${port}/article`,
  `http://127.0.1:${port}/article`,
  `http://2130706433:${port}/article`,
  `http://0x7f000001:${port}/article`,
  `http://0x7f.0.0.1:${port}/article`,
  `http://0177.0.0.1:${port}/article`,
  `http://017700000001:${port}/article`,
  `http://[::1]:${port}/article`,
  `http://[::ffff:127.0.0.1]:${port}/article`,
  `http://[::ffff:7f00:1]:${port}/article`,
  `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/article`,
  `http://[::127.0.0.1]:${port}/article`,
  `http://0.0.0.0:${port}/article`,
  `http://0:${port}/article`,
  `http://user:pass@127.0.0.1:${port}/article`,
  `http://127.0.0.1.:${port}/article`,
];

test('every loopback spelling is refused with 403 blocked_url and never reaches the site', async () => {
  for (const url of spellings()) {
    const res = await api.post('/fetch', { url });
    assert.equal(res.status, 403, `${url} → ${res.status} ${res.text}`);
    assert.equal(res.body.code, 'blocked_url', url);
    assert.equal(typeof res.body.detail, 'string');
  }
  assert.equal(site.hits(), 0);
});

test('batch, estimate and the cache-bypassing path are guarded too', async () => {
  const batch = await api.post('/fetch/batch', { urls: spellings().slice(0, 5) });
  assert.equal(batch.status, 200);
  for (const r of batch.body.results) assert.equal(r.error.code, 'blocked_url');
  for (const url of spellings().slice(0, 5)) {
    const est = await api.get(`/estimate?url=${encodeURIComponent(url)}`);
    assert.equal(est.status, 403, url);
    assert.equal(est.body.code, 'blocked_url');
  }
  const fresh = await api.post('/fetch', { url: site.url('/article'), use_cache: false });
  assert.equal(fresh.status, 403);
  assert.equal(site.hits(), 0);
});
