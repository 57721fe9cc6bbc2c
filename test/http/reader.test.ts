// GET /r/<url>: the target URL from the raw path (its query string kept, ours taken out), Markdown with its numbers in
// headers, POST /fetch's JSON on request, 422s located in the path or the query, text errors for text callers, and
// the same key, meter and ledger as POST /fetch.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

const read = (target: string, headers: Record<string, string> = {}) =>
  api.request('GET', `/r/${target}`, undefined, headers);

describe('GET /r/<url>', () => {
  test('answers the page as Markdown with token count, fetcher, cache and credits in headers', async () => {
    const res = await read(site.url('/article'));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(res.text, /^# Growing Tomatoes on a Balcony/);
    assert.equal(res.headers.get('x-token-count'), String(countTokens(res.text)));
    assert.equal(res.headers.get('x-fetcher'), 'html');
    assert.equal(res.headers.get('x-cache'), 'MISS');
    assert.equal(res.headers.get('x-credits'), '1');
    const again = await read(site.url('/article'));
    assert.equal(again.headers.get('x-cache'), 'HIT');
    assert.equal(again.headers.get('x-credits'), '0.1');
    assert.equal(again.text, res.text);
    const viaPost = await api.post('/fetch', { url: site.url('/article') });
    assert.equal(viaPost.body.cache.hit, true, 'the same cached copy as POST /fetch');
    assert.equal(viaPost.body.markdown, res.text);
  });

  test('keeps the target query string as sent and takes out the parameters that are ours', async () => {
    const target = `${site.origin}/echo?x=1&y=2&max_tokens=500&format=text&z=%20a+b`;
    const res = await read(target);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', 'format=text was ours');
    assert.match(res.text, /\[\?x=1&y=2&z=%20a\+b\]/);
    assert.ok(Number(res.headers.get('x-token-count')) <= 500);
    // Percent-encoded whole, the target keeps parameters named like ours; the outer query is all ours.
    const encoded = encodeURIComponent(`${site.origin}/echo?format=site-own&q=1`);
    const own = await read(`${encoded}?format=text`);
    assert.equal(own.status, 200, own.text);
    assert.match(own.text, /\[\?format=site-own&q=1\]/);
    assert.equal(own.headers.get('content-type'), 'text/plain; charset=utf-8');
    // A proxy that merged the slashes of https:// does not break it.
    const merged = await read(site.url('/article').replace('http://', 'http:/'));
    assert.equal(merged.status, 200, merged.text);
    assert.match(merged.text, /Growing Tomatoes/);
  });

  test('Accept: application/json answers what POST /fetch answers, on a miss and on a cache hit', async () => {
    const url = site.url('/metadata');
    const json = await read(url, { accept: 'application/json' });
    assert.equal(json.status, 200, json.text);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    // A hit is the answer kept with the cached copy, serialised here first (issue 31: this was a 500).
    const hit = await read(url, { accept: 'application/json' });
    assert.equal(hit.status, 200, hit.text);
    assert.match(hit.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(hit.body.cache.hit, true);
    const post = await api.post('/fetch', { url });
    assert.equal(post.body.cache.hit, true);
    for (const answer of [json, hit]) {
      assert.deepEqual(Object.keys(answer.body).sort(), Object.keys(post.body).sort());
      assert.equal(answer.body.url, url);
      assert.equal(answer.body.markdown, post.body.markdown);
      assert.deepEqual(answer.body.metadata, post.body.metadata);
    }
  });

  test('max_tokens trims and X-Next-Cursor reads on; include and max_age work as body fields do', async () => {
    const first = await read(`${site.url('/long')}?max_tokens=50`);
    assert.equal(first.status, 200, first.text);
    const cursor = first.headers.get('x-next-cursor');
    assert.ok(cursor);
    const next = await read(`${site.url('/long')}?max_tokens=50&cursor=${cursor}`);
    assert.equal(next.status, 200, next.text);
    assert.notEqual(next.text, first.text);
    const table = await read(`${site.url('/article')}?include=table&include=h1`);
    assert.equal(table.status, 200, table.text);
    assert.match(table.text, /^# Growing Tomatoes on a Balcony\n\n\| Variety/);
    const hits = site.hits('/article');
    const fresh = await read(`${site.url('/article')}?max_age=0`);
    assert.equal(fresh.headers.get('x-cache'), 'MISS');
    assert.equal(site.hits('/article'), hits + 1);
  });

  test('a path that is not an http(s) URL, and bad parameters, are 422s that name the field', async () => {
    for (const [target, loc] of [
      ['ftp://example.com/file', ['path', 'url']],
      ['not-a-url', ['path', 'url']],
      ['', ['path', 'url']],
      [`${site.url('/article')}?max_tokens=abc`, ['query', 'max_tokens']],
      [`${site.url('/article')}?max_age=-1`, ['query', 'max_age']],
      [`${site.url('/article')}?include=div[`, ['query', 'include', 0]],
      [`${site.url('/article')}?format=pdf`, ['query', 'format']],
    ] as const) {
      const res = await read(target);
      assert.equal(res.status, 422, `${target}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(res.body.detail[0].loc, loc, target);
    }
    const text = await read('ftp://example.com/file', { accept: 'text/plain' });
    assert.equal(text.status, 422);
    assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(text.text, /^422 validation_error\npath\.url: URL scheme should be 'http' or 'https'\nrequest id: /);
    const upstream = await read(site.url('/status/404'), { accept: 'text/markdown' });
    assert.equal(upstream.status, 502);
    assert.match(upstream.text, /^502 upstream_status: /);
  });

  test('is authenticated and billed like POST /fetch', async () => {
    const bad = await read(site.url('/article'), { 'x-service-key': 'fd_live_nope' });
    assert.equal(bad.status, 401);
    const { apiKey } = await signUp(api);
    const url = site.url(`/unique/reader-${process.pid}-${Date.now()}`);
    const res = await read(url, withKey(apiKey));
    assert.equal(res.status, 200, res.text);
    const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
    assert.equal(usage.body.credits_used, 1);
  });
});
