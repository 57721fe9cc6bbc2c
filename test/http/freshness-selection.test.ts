// Issue 17 over HTTP: max_age, the copy's age, content_hash and changed on every cache backend (an injected clock
// ages copies); include and exclude made from one fetched copy, proved with the fixture site's request counter.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { CACHE_BACKENDS } from '../helpers/cache-backends.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { sourceKey, type StoredHtml } from '../../src/services/page-source.js';

const site = await startFixtureSite({ after });

let run = 0;
for (const backend of CACHE_BACKENDS) {
  describe(`max_age and changed on ${backend.name}`, () => {
    test('a copy older than max_age is fetched again and says whether its content changed', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      let now = Date.parse('2026-11-24T10:00:00Z');
      const api = await buildTestApp(t, env, { clock: { now: () => now } });
      // Version A for the first request of the path, version B from the second on.
      const path = `/changes-at/2/${backend.name}-${process.pid}-${Date.now()}-${run++}`;
      const url = site.url(path);

      const first = await api.post('/fetch', { url });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.cache.hit, false);
      assert.equal(first.body.cache.age_seconds, 0);
      assert.match(first.body.fetch_info.content_hash, /^[0-9a-f]{32}$/);
      assert.equal(first.body.fetch_info.changed, undefined, 'no earlier copy to compare with');

      now += 30_000;
      const young = await api.post('/fetch', { url, max_age: 60 });
      assert.equal(young.body.cache.hit, true);
      assert.equal(young.body.cache.age_seconds, 30);
      assert.equal(young.body.cache.cached_at, first.body.cache.cached_at);
      const plain = await api.post('/fetch', { url });
      assert.equal(plain.body.cache.age_seconds, 30, 'the age is right on a kept whole answer too');
      now += 1_000;
      assert.equal((await api.post('/fetch', { url })).body.cache.age_seconds, 31);
      assert.equal(site.hits(path), 1);

      now += 40_000;
      const refetched = await api.post('/fetch', { url, max_age: 60 });
      assert.equal(refetched.body.cache.hit, false, 'older than 60 s: fetched again');
      assert.equal(refetched.body.cache.age_seconds, 0);
      assert.equal(site.hits(path), 2);
      assert.match(refetched.body.markdown, /version B/);
      assert.equal(refetched.body.fetch_info.changed, true);
      assert.equal(refetched.body.fetch_info.last_seen_different_at, first.body.cache.cached_at);
      assert.notEqual(refetched.body.fetch_info.content_hash, first.body.fetch_info.content_hash);

      now += 5_000;
      const again = await api.post('/fetch', { url, max_age: 0 });
      assert.equal(again.body.cache.hit, false, 'max_age 0 always fetches');
      assert.equal(site.hits(path), 3);
      assert.equal(again.body.fetch_info.changed, false);
      assert.equal(again.body.fetch_info.content_hash, refetched.body.fetch_info.content_hash, 'a stable hash');
      assert.equal(again.body.fetch_info.last_seen_different_at, first.body.cache.cached_at);

      const hit = await api.post('/fetch', { url });
      assert.equal(hit.body.cache.hit, true);
      assert.equal(hit.body.fetch_info.changed, undefined, 'a change is news only to the fetch that saw it');
      const batch = await api.post('/fetch/batch', { urls: [url], max_age: 0 });
      assert.equal(batch.body.results[0].cache.hit, false);
      assert.equal(batch.body.results[0].fetch_info.changed, false);
      assert.equal(site.hits(path), 4);

      // Selections are made from the cached HTML, on this backend too: no fetch more.
      const part = await api.post('/fetch', { url, include: ['aside.note'] });
      assert.equal(part.status, 200, part.text);
      assert.equal(part.body.markdown, 'A note beside version B.');
      assert.equal(part.body.cache.hit, true);
      assert.equal(site.hits(path), 4);
    });
  });
}

describe('max_age and selectors: validation', () => {
  let api: TestApp;
  before(async () => {
    api = await buildTestApp({ after });
  });

  test('negative or non-integer max_age is a 422 that names it', async () => {
    for (const [body, loc] of [
      [{ url: site.url('/article'), max_age: -1 }, ['body', 'max_age']],
      [{ url: site.url('/article'), max_age: 1.5 }, ['body', 'max_age']],
      [{ urls: [site.url('/article')], max_age: -5 }, ['body', 'max_age']],
    ] as const) {
      const res = await api.post('urls' in body ? '/fetch/batch' : '/fetch', body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.body.detail[0].loc, loc);
    }
  });

  test('a broken selector is a 422 that names it and where it is; limits on count and length', async () => {
    const res = await api.post('/fetch', {
      url: site.url('/article'),
      include: ['p', 'div['],
      exclude: ['nav', '::before'],
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(
      res.body.detail.map((i: { loc: unknown }) => i.loc),
      [
        ['body', 'include', 1],
        ['body', 'exclude', 1],
      ],
    );
    assert.match(res.body.detail[0].msg, /Invalid CSS selector "div\["/);
    assert.equal(res.body.detail[0].type, 'selector_invalid');
    const batch = await api.post('/fetch/batch', { urls: [site.url('/article')], exclude: ['###'] });
    assert.equal(batch.status, 422, 'a broken selector fails the batch, not each URL');
    assert.deepEqual(batch.body.detail[0].loc, ['body', 'exclude', 0]);
    const long = await api.post('/fetch', { url: site.url('/article'), include: ['p'.repeat(201)] });
    assert.deepEqual(long.body.detail[0].loc, ['body', 'include', 0]);
    const many = await api.post('/fetch', { url: site.url('/article'), include: Array(21).fill('p') });
    assert.deepEqual(many.body.detail[0].loc, ['body', 'include']);
    const blank = await api.post('/fetch', { url: site.url('/article'), include: ['  '] });
    assert.equal(blank.status, 422);
    assert.deepEqual(blank.body.detail[0].loc, ['body', 'include', 0]);
    assert.equal(site.hits('/article'), 0, 'nothing fetched for a request refused');
  });
});

describe('include and exclude', () => {
  let api: TestApp;
  before(async () => {
    api = await buildTestApp({ after });
  });

  test('each selection is extracted from the one fetched copy', async () => {
    const path = `/unique/selection-${process.pid}-${Date.now()}`;
    const url = site.url(path);
    // Two selections at once, before any copy exists: one fetch between them.
    const [included, excluded] = await Promise.all([
      api.post('/fetch', { url, include: ['h1'] }),
      api.post('/fetch', { url, exclude: ['h1'] }),
    ]);
    assert.equal(included.status, 200, included.text);
    assert.equal(excluded.status, 200, excluded.text);
    assert.equal(site.hits(path), 1);
    assert.equal(included.body.markdown, '# Unique');
    assert.deepEqual(included.body.fetch_info.selection, { applied: true, included: 1, excluded: null });
    assert.doesNotMatch(excluded.body.markdown, /^# Unique$/m);
    assert.match(excluded.body.markdown, /served at hit 1 /);
    assert.deepEqual(excluded.body.fetch_info.selection, { applied: true, included: null, excluded: 1 });
    const plain = await api.post('/fetch', { url });
    assert.equal(plain.body.cache.hit, true);
    assert.equal(plain.body.credits, 0.1);
    assert.equal(site.hits(path), 1);
  });

  test('include keeps only what matches, in document order; exclude removes before extraction', async () => {
    const url = site.url('/article');
    const only = await api.post('/fetch', { url, include: ['table', 'article h2', 'aside.sidebar'] });
    assert.equal(only.status, 200, only.text);
    const { markdown } = only.body;
    assert.ok(markdown.startsWith('## What you need\n\n## Varieties compared\n\n| Variety'), markdown);
    assert.match(markdown, /SIDEBAR-MARKER/, 'a part that main-content extraction drops can be asked for');
    assert.doesNotMatch(markdown, /six hours/);
    assert.equal(only.body.metadata.title, 'Growing Tomatoes on a Balcony', 'metadata is the page’s');
    assert.equal(only.body.metadata.token_count, only.body.metadata.total_tokens);
    const hits = site.hits('/article');

    const without = await api.post('/fetch', { url, exclude: ['table', 'pre', '.nothing-matches'] });
    assert.equal(without.body.cache.hit, true, 'made from the cached page');
    assert.equal(without.body.credits, 0.1);
    assert.match(without.body.markdown, /six hours/);
    assert.doesNotMatch(without.body.markdown, /\| Variety|def water/);
    assert.notEqual(without.body.fetch_info.content_hash, only.body.fetch_info.content_hash);

    const reordered = await api.post('/fetch', { url, include: ['aside.sidebar', 'article h2', 'table'] });
    assert.equal(reordered.body.markdown, markdown, 'the same set of selectors, in any order, is one selection');
    const none = await api.post('/fetch', { url, include: ['.nothing-matches'] });
    assert.equal(none.body.markdown, '');
    assert.deepEqual(none.body.fetch_info.selection, { applied: true, included: 0, excluded: null });
    const batch = await api.post('/fetch/batch', { urls: [url], include: ['table'] });
    assert.match(batch.body.results[0].markdown, /^\| Variety/);
    assert.equal(site.hits('/article'), hits, 'never fetched again for another selection');
  });

  test('an exclude that matches the root element leaves nothing of the page, never a 500 (issue 31)', async () => {
    const url = site.url('/article');
    for (const selector of ['html', '*', ':root', 'html:has(body p)', ':has(p)', 'head, :root']) {
      const res = await api.post('/fetch', { url, exclude: [selector, 'p'] });
      assert.equal(res.status, 200, `${selector}: ${res.text}`);
      assert.equal(res.body.markdown, '', selector);
      assert.deepEqual(res.body.fetch_info.selection, { applied: true, included: null, excluded: 1 }, selector);
    }
    const both = await api.post('/fetch', { url, include: ['p'], exclude: [':root'] });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.markdown, '');
    assert.deepEqual(both.body.fetch_info.selection, { applied: true, included: 0, excluded: 1 });
  });

  test('a selection reads on in parts with its cursor, and the cursor is its own', async () => {
    const url = site.url('/long');
    const first = await api.post('/fetch', { url, include: ['h2'], max_tokens: 20 });
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.next_cursor);
    assert.ok(first.body.metadata.total_tokens > 20);
    const next = await api.post('/fetch', { url, include: ['h2'], max_tokens: 20, cursor: first.body.next_cursor });
    assert.equal(next.status, 200, next.text);
    assert.match(next.body.markdown, /^## Part \d+/);
    const elsewhere = await api.post('/fetch', { url, max_tokens: 20, cursor: first.body.next_cursor });
    assert.equal(elsewhere.status, 422);
    assert.match(elsewhere.body.detail[0].msg, /selection/);
  });

  test('the HTML kept for selections is stored compressed: a fraction of the page it came from', async () => {
    const url = site.url(`/long?kept=${process.pid}-${Date.now()}`);
    const whole = await api.post('/fetch', { url });
    assert.equal(whole.status, 200);
    const { pageCacheKey } = await import('../../src/services/page-cache.js');
    const kept = await api.services.cache.get<StoredHtml>(sourceKey(pageCacheKey(new URL(url))));
    assert.ok(kept, 'the HTML is kept');
    const html = await (await fetch(url)).text();
    assert.ok(
      kept.value.brotli.length < html.length / 2,
      `${kept.value.brotli.length} base64 bytes for ${html.length}`,
    );
    const selected = await api.post('/fetch', { url, include: ['h1'] });
    assert.equal(selected.body.cache.hit, true, 'made from the kept copy, unpacked');
    assert.equal(selected.body.markdown.trim(), whole.body.markdown.split('\n')[0]);
  });

  test('a page whose HTML left the cache before it (LRU) is fetched again once, then selections reuse it', async () => {
    const path = `/unique/evicted-${process.pid}-${Date.now()}`;
    const url = site.url(path);
    assert.equal((await api.post('/fetch', { url })).status, 200);
    const { pageCacheKey } = await import('../../src/services/page-cache.js');
    assert.equal(await api.services.cache.delete(sourceKey(pageCacheKey(new URL(url)))), true);
    const first = await api.post('/fetch', { url, include: ['p'] });
    assert.equal(first.body.cache.hit, false);
    assert.match(first.body.markdown, /served at hit 2 /);
    const second = await api.post('/fetch', { url, exclude: ['p'] });
    assert.equal(second.body.cache.hit, true);
    assert.equal(site.hits(path), 2);
  });

  test('content that is not HTML is returned whole, saying the selectors were not applied', async () => {
    const res = await api.post('/fetch', { url: site.url('/plain.txt'), include: ['p'] });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.markdown, /Just plain text/);
    assert.deepEqual(res.body.fetch_info.selection, { applied: false, included: null, excluded: null });
  });

  test('DELETE /cache drops the page and its HTML: the next selection fetches again', async () => {
    const path = `/unique/delete-${process.pid}-${Date.now()}`;
    const url = site.url(path);
    assert.equal((await api.post('/fetch', { url, include: ['p'] })).status, 200);
    const { signUp, withKey } = await import('../helpers/accounts.js');
    const { apiKey } = await signUp(api);
    const deleted = await api.request('DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey));
    assert.equal(deleted.body.deleted, true);
    const after = await api.post('/fetch', { url, include: ['p'] });
    assert.equal(after.body.cache.hit, false);
    assert.match(after.body.markdown, /served at hit 2 /);
    assert.equal(site.hits(path), 2);
  });
});
