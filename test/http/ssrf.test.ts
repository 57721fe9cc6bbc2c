// With FETCH_ALLOW_PRIVATE_NETWORKS off, no spelling of a loopback address reaches the fixture site.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp({ FETCH_ALLOW_PRIVATE_NETWORKS: '0' });
const port = Number(new URL(site.origin).port);

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

// A newcomer's first local fetch: the refusal says how to allow it, except in production, where the caller is not the
// one running the server.
test('outside production a refused private address names FETCH_ALLOW_PRIVATE_NETWORKS; in production it does not', async (t) => {
  const local = site.url('/article').replace('127.0.0.1', 'localhost');
  const res = await api.post('/fetch', { url: local });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'blocked_url');
  assert.equal(
    res.body.detail,
    'localhost resolves to a private or reserved address; only public internet addresses can be fetched unless ' +
      'Fetchdown runs with FETCH_ALLOW_PRIVATE_NETWORKS=1',
  );
  assert.match(res.body.retry_hint, /set FETCH_ALLOW_PRIVATE_NETWORKS=1 where Fetchdown runs/);
  const literal = await api.post('/fetch', { url: site.url('/article') });
  assert.match(
    literal.body.detail,
    /^127\.0\.0\.1 is a private or reserved address; .*FETCH_ALLOW_PRIVATE_NETWORKS=1$/,
  );
  const batch = await api.post('/fetch/batch', { urls: [local] });
  assert.match(batch.body.results[0].error.detail, /FETCH_ALLOW_PRIVATE_NETWORKS=1/, 'a batch entry has no hint field');
  const estimate = await api.get(`/estimate?url=${encodeURIComponent(local)}`);
  assert.match(estimate.body.detail, /FETCH_ALLOW_PRIVATE_NETWORKS=1/);

  const production = await buildTestApp(t, { FETCH_ALLOW_PRIVATE_NETWORKS: '0', NODE_ENV: 'production' });
  for (const url of [local, site.url('/article')]) {
    const refused = await production.post('/fetch', { url });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'blocked_url');
    assert.match(refused.body.detail, /a private or reserved address; only public internet addresses can be fetched$/);
    assert.equal(refused.body.retry_hint, 'only public internet addresses can be fetched');
    assert.doesNotMatch(refused.text, /FETCH_ALLOW_PRIVATE_NETWORKS/);
  }
  assert.equal(site.hits(), 0);
});
