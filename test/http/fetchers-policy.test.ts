// Fetch policy over HTTP: robots.txt is honoured (and can be turned off), and the browser and the reader are behind
// the same SSRF guard as the plain client when FETCH_ALLOW_PRIVATE_NETWORKS is off.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  startFetcherSite,
  startReaderStandIn,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { buildTestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let reader: ReaderStandIn;
before(async () => {
  site = await startFetcherSite();
  reader = await startReaderStandIn('k');
});
after(async () => {
  await site.close();
  await reader.close();
});

describe('robots.txt', () => {
  test('a disallowed path is 403 robots_disallowed with a retry hint, never fetched, not cached', async (t) => {
    site.setRobots({ status: 200, body: 'User-agent: FetchdownBot\nDisallow: /article\n' });
    const api = await buildTestApp(t);
    const before = site.hits('/article');
    const res = await api.post('/fetch', { url: site.url('/article') });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'robots_disallowed');
    assert.match(res.body.detail, /robots\.txt disallows FetchdownBot from \/article/);
    assert.ok(res.body.retry_hint);
    assert.equal(site.hits('/article'), before);
    assert.equal((await api.get(`/cache?url=${encodeURIComponent(site.url('/article'))}`)).body.cached, false);
    // Every fetcher is bound by it, a forced one too.
    const forced = await api.post('/fetch', { url: site.url('/article'), fetcher: 'browser' });
    assert.equal(forced.body.code, 'robots_disallowed');
    assert.equal((await api.post('/fetch', { url: site.url('/short-real') })).status, 200, 'other paths are fine');
  });

  test('ROBOTS_TXT=ignore does not even ask for it', async (t) => {
    site.setRobots({ status: 200, body: 'User-agent: *\nDisallow: /\n' });
    const api = await buildTestApp(t, { ROBOTS_TXT: 'ignore' });
    const before = site.hits('/robots.txt');
    const res = await api.post('/fetch', { url: site.url('/short-real') });
    assert.equal(res.status, 200);
    assert.equal(site.hits('/robots.txt'), before);
    site.setRobots(null);
  });
});

describe('SSRF guard with FETCH_ALLOW_PRIVATE_NETWORKS off', () => {
  test('forcing the browser or the reader on a loopback URL is 403 blocked_url; nobody is asked', async (t) => {
    const api = await buildTestApp(t, {
      FETCH_ALLOW_PRIVATE_NETWORKS: '0',
      ROBOTS_TXT: 'ignore',
      READER_BASE_URL: reader.baseUrl,
      READER_API_KEY: 'k',
    });
    const siteBefore = site.hits();
    for (const fetcher of ['browser', 'reader', 'auto', 'pdf']) {
      for (const url of [site.url('/app-shell'), `http://localhost:${new URL(site.origin).port}/app-shell`]) {
        const res = await api.post('/fetch', { url, fetcher });
        assert.equal(res.status, 403, `${fetcher} ${url}: ${res.text}`);
        assert.equal(res.body.code, 'blocked_url');
      }
    }
    assert.equal(site.hits(), siteBefore);
    assert.equal(reader.requested.length, 0);
  });
});
