// Cache behaviour over HTTP on every backend: miss, hit, expiry, delete, normalised keys, whole answers read again,
// shared concurrent misses.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { CACHE_BACKENDS } from '../helpers/cache-backends.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startFixtureSite({ after });

let run = 0;
for (const backend of CACHE_BACKENDS) {
  describe(`cache on ${backend.name}`, () => {
    test('miss, hit, status, delete and expiry', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      let now = Date.now();
      const api = await buildTestApp(t, { ...env, CACHE_TTL_SECONDS: '2' }, { clock: { now: () => now } });
      const { apiKey } = await signUp(api);
      const path = `/unique/${backend.name}-${process.pid}-${Date.now()}-${run++}`;
      const url = site.url(path);
      const q = `/cache?url=${encodeURIComponent(url)}`;

      const none = await api.get(q);
      assert.deepEqual(none.body, {
        url,
        cached: false,
        cached_at: null,
        expires_at: null,
        fetcher_used: null,
        token_count: null,
      });

      const first = await api.post('/fetch', { url });
      assert.equal(first.status, 200);
      assert.equal(first.body.cache.hit, false);
      const second = await api.post('/fetch', { url, max_tokens: 5 });
      assert.equal(second.body.cache.hit, true);
      assert.equal(second.body.cache.cached_at, first.body.cache.cached_at);
      assert.equal(site.hits(path), 1, 'served from the cache');

      // Normalised key: case of scheme/host, default port and fragment do not matter.
      const variant = url.replace('http://', 'HTTP://').replace(path, `${path}#section`);
      assert.equal((await api.post('/fetch', { url: variant })).body.cache.hit, true);

      const status = await api.get(q);
      assert.equal(status.body.cached, true);
      assert.equal(status.body.fetcher_used, 'html');
      assert.equal(status.body.token_count, first.body.metadata.total_tokens);
      assert.equal(status.body.cached_at, first.body.cache.cached_at);

      const forced = await api.post('/fetch', { url, use_cache: false });
      assert.equal(forced.body.cache.hit, false);
      assert.equal(site.hits(path), 2, 'use_cache=false fetches again');

      const anonymous = await api.request('DELETE', q);
      assert.equal(anonymous.status, 401, 'evicting a shared copy takes a key');
      assert.equal(anonymous.body.code, 'invalid_api_key');
      assert.equal((await api.get(q)).body.cached, true, 'and the copy is still there');
      const deleted = await api.request('DELETE', q, undefined, withKey(apiKey));
      assert.deepEqual(deleted.body, { url, deleted: true });
      assert.deepEqual((await api.request('DELETE', q, undefined, withKey(apiKey))).body, { url, deleted: false });
      assert.equal((await api.post('/fetch', { url })).body.cache.hit, false);
      assert.equal(site.hits(path), 3);

      now += 2_000;
      assert.equal((await api.get(q)).body.cached, false, 'expired after CACHE_TTL_SECONDS');
      assert.equal((await api.post('/fetch', { url })).body.cache.hit, false);
      assert.equal(site.hits(path), 4);
    });

    // Whole answers of a cached copy are made once and kept with it (src/services/answer-memo.ts).
    test('a cached page read again: the same answer, yet trimmed, restyled and spelled per request, and never stale', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, env);
      const url = site.url(`/article?whole=${backend.name}-${process.pid}-${Date.now()}-${run++}`);
      const first = await api.post('/fetch', { url });
      assert.equal(first.body.cache.hit, false);
      const whole = await api.post('/fetch', { url });
      assert.equal(whole.body.cache.hit, true);
      assert.deepEqual(
        { ...whole.body, cache: { ...whole.body.cache, hit: false }, credits: first.body.credits },
        first.body,
      );
      assert.equal((await api.post('/fetch', { url })).text, whole.text);
      assert.equal(
        (await api.post('/fetch', { url, max_tokens: whole.body.metadata.total_tokens })).text,
        whole.text,
        'a budget that fits is the whole',
      );

      const trimmed = await api.post('/fetch', { url, max_tokens: 20 });
      assert.equal(trimmed.body.metadata.truncated, true);
      assert.ok(trimmed.body.metadata.token_count <= 20);
      assert.equal(typeof trimmed.body.next_cursor, 'string');
      const text = await api.post('/fetch', { url, format: 'text' });
      assert.ok(!text.body.markdown.includes('## '), 'text has no Markdown syntax');
      const plain = await api.post('/fetch', { url, links: 'none', images: 'none' });
      assert.ok(whole.body.markdown.includes(']('));
      assert.ok(!plain.body.markdown.includes(']('), 'no links or images');
      const json = await api.post('/fetch', { url, format: 'json' });
      assert.ok(Array.isArray(json.body.document.blocks));
      assert.equal(whole.body.document, undefined);
      const respelled = url.replace('http://', 'HTTP://') + '#part';
      const other = await api.post('/fetch', { url: respelled });
      assert.equal(other.body.url, respelled, 'the URL as this request wrote it');
      assert.equal(other.body.markdown, whole.body.markdown);
      assert.equal((await api.post('/fetch', { url })).text, whole.text, 'other reads left the first answer as it was');

      // A new copy (use_cache=false) gets answers of its own: /unique/ pages say which fetch they came from.
      const path = `/unique/whole-${backend.name}-${process.pid}-${Date.now()}-${run++}`;
      await api.post('/fetch', { url: site.url(path) });
      assert.match((await api.post('/fetch', { url: site.url(path) })).body.markdown, /hit 1 /);
      await api.post('/fetch', { url: site.url(path), use_cache: false });
      const fresh = await api.post('/fetch', { url: site.url(path) });
      assert.equal(fresh.body.cache.hit, true);
      assert.match(fresh.body.markdown, /hit 2 /);
    });
  });
}

// A kept answer is sent as the bytes it was serialised to once (src/http/routes/fetch.ts): its length must count
// bytes, not characters, or a client would cut a page in Japanese short.
test('a kept answer is sent whole, with its length in bytes', async (t) => {
  const api = await buildTestApp(t);
  const url = site.url(`/charset/sjis?kept=${process.pid}-${Date.now()}`);
  const first = await api.post('/fetch', { url });
  const kept = await api.post('/fetch', { url });
  assert.equal(kept.body.cache.hit, true);
  assert.match(kept.body.markdown, /吾輩は猫である。名前はまだ無い。/);
  assert.equal(kept.body.markdown, first.body.markdown);
  assert.equal(kept.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(Number(kept.headers.get('content-length')), Buffer.byteLength(kept.text));
  assert.ok(Buffer.byteLength(kept.text) > kept.text.length, 'the answer holds multi-byte characters');
  assert.equal((await api.post('/fetch', { url })).text, kept.text);
});

test('the embedded SQLite cache survives a restart', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-restart-'));
  const url = site.url(`/unique/restart-${Date.now()}`);
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await buildTestApp(t, { CACHE_URL: '', DATA_DIR: dataDir });
  assert.equal((await first.post('/fetch', { url })).body.cache.hit, false);
  await first.close();
  const second = await buildTestApp(t, { CACHE_URL: '', DATA_DIR: dataDir });
  assert.equal((await second.post('/fetch', { url })).body.cache.hit, true);
});

test('concurrent misses for one URL share one upstream fetch', async (t) => {
  const api = await buildTestApp(t);
  const path = `/delay/200/shared-${Date.now()}`;
  const responses = await Promise.all(Array.from({ length: 8 }, () => api.post('/fetch', { url: site.url(path) })));
  for (const res of responses) assert.equal(res.status, 200);
  assert.equal(site.hits(path), 1);
});

describe('cache outage (Redis unreachable)', () => {
  test('fetches still work uncached; /cache and cursors answer 503 cache_unavailable; /ready says why', async (t) => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const api = await buildTestApp(t, { CACHE_URL: `redis://127.0.0.1:${port}` });
    for (const attempt of [1, 2]) {
      const res = await api.post('/fetch', { url: site.url('/article'), max_tokens: 50 });
      assert.equal(res.status, 200, `attempt ${attempt}: ${res.text}`);
      assert.equal(res.body.cache.hit, false);
      assert.match(res.body.markdown, /Growing Tomatoes/);
      if (attempt === 2) {
        const next = await api.post('/fetch', {
          url: site.url('/article'),
          cursor: res.body.next_cursor,
          max_tokens: 50,
        });
        assert.equal(next.status, 503, next.text);
        assert.equal(next.body.code, 'cache_unavailable');
      }
    }
    const { apiKey } = await signUp(api);
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await api.request(
        method,
        `/cache?url=${encodeURIComponent(site.url('/article'))}`,
        undefined,
        withKey(apiKey),
      );
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'cache_unavailable');
      assert.ok(res.body.retry_hint);
    }
    const ready = await api.request('GET', '/ready');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.cache.ok, false);
  });
});

// Security: the cache is shared, so its status would tell an anonymous caller what the service's other users read.
test('GET /cache tells anonymous callers from elsewhere nothing: 401 whether or not the URL was fetched', async (t) => {
  const api = await buildTestApp(t);
  const { apiKey } = await signUp(api);
  const fetched = site.url(`/unique/probed-${process.pid}-${Date.now()}`);
  const neverFetched = site.url(`/unique/not-probed-${process.pid}-${Date.now()}`);
  assert.equal((await api.post('/fetch', { url: fetched })).status, 200, 'someone else reads the page');
  const elsewhere = { 'x-forwarded-for': '203.0.113.9' }; // through a trusted loopback proxy, as in production

  const answers = [];
  for (const url of [fetched, neverFetched]) {
    const probe = await api.request('GET', `/cache?url=${encodeURIComponent(url)}`, undefined, elsewhere);
    assert.equal(probe.status, 401, probe.text);
    assert.equal(probe.body.code, 'invalid_api_key');
    assert.match(probe.body.detail, /needs an API key in the X-Service-Key header/);
    assert.equal(probe.headers.get('www-authenticate'), 'ApiKey header="X-Service-Key"');
    assert.equal(probe.body.cached, undefined);
    const { request_id: _id, ...answer } = probe.body;
    answers.push(answer);
  }
  assert.deepEqual(answers[0], answers[1], 'a fetched URL and one never fetched get the same answer');

  const keyed = await api.request('GET', `/cache?url=${encodeURIComponent(fetched)}`, undefined, {
    ...elsewhere,
    ...withKey(apiKey),
  });
  assert.equal(keyed.status, 200, keyed.text);
  assert.equal(keyed.body.cached, true, 'a caller with a key, who may read the copy, is told');
  assert.equal(keyed.body.fetcher_used, 'html');
  const local = await api.get(`/cache?url=${encodeURIComponent(fetched)}`);
  assert.equal(local.status, 200, 'a caller on the machine itself (its operator) is told too');
  assert.equal(local.body.cached, true);
});
