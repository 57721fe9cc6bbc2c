// Without a browser or a reader the router still answers: it skips them, says so in the attempts, never crashes, and
// never returns (or bills, or caches) a challenge page, an error page or an empty extraction as content.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFetcherSite, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let api: TestApp;
before(async () => {
  site = await startFetcherSite();
  api = await buildTestApp({ after }, { CHROMIUM_PATH: '/nonexistent/chromium' });
});
after(() => site.close());

const fetchUrl = (path: string, extra: Record<string, unknown> = {}) =>
  api.post('/fetch', { url: site.url(path), ...extra });
const cached = async (path: string) => (await api.get(`/cache?url=${encodeURIComponent(site.url(path))}`)).body.cached;
const outcomes = (attempts: { fetcher: string; outcome: string }[]) => attempts.map((a) => `${a.fetcher}:${a.outcome}`);

describe('no browser, no reader', () => {
  test('an app shell: 503 fetcher_unavailable naming the shell, attempts list the skipped fetchers', async () => {
    const res = await fetchUrl('/app-shell');
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'fetcher_unavailable');
    assert.match(res.body.detail, /app shell .*needs JavaScript rendering/);
    assert.deepEqual(outcomes(res.body.attempts), ['html:app_shell', 'browser:unavailable', 'reader:unavailable']);
    assert.match(res.body.attempts[1].detail, /no browser installed at \/nonexistent\/chromium/);
    assert.equal(await cached('/app-shell'), false);
  });

  test('a challenge: 502 blocked_by_site, not cached; the detail says no reader is configured', async () => {
    const res = await fetchUrl('/challenge');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'blocked_by_site');
    assert.match(res.body.detail, /bot challenge \(Cloudflare challenge \(cf-mitigated\)\); reader: not configured/);
    assert.ok(res.body.retry_hint);
    assert.equal(await cached('/challenge'), false);
  });

  test('a challenge served with 200 is no content either', async () => {
    const res = await fetchUrl('/challenge-200');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'blocked_by_site');
  });

  test("a plain 403 stays the site's status", async () => {
    const res = await fetchUrl('/forbidden');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'upstream_status');
    assert.equal(res.body.upstream_status, 403);
  });

  test('an empty page is 422 empty_content, not cached', async () => {
    const res = await fetchUrl('/empty');
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'empty_content');
    assert.equal(await cached('/empty'), false);
  });

  test('forcing the browser or the reader: 503 fetcher_unavailable with the reason', async () => {
    const browser = await fetchUrl('/article', { fetcher: 'browser' });
    assert.equal(browser.status, 503);
    assert.match(browser.body.detail, /fetcher browser cannot run: no browser installed/);
    const reader = await fetchUrl('/article', { fetcher: 'reader' });
    assert.equal(reader.status, 503);
    assert.match(reader.body.detail, /READER_API_KEY/);
  });

  test('pages with content are unaffected', async () => {
    for (const path of ['/article', '/short-real', '/report.pdf']) {
      const res = await fetchUrl(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
  });
});

describe('BROWSER_POOL_SIZE=0 turns the browser off', () => {
  test('the app shell is answered without one', async (t) => {
    const off = await buildTestApp(t, { BROWSER_POOL_SIZE: '0' });
    const res = await off.post('/fetch', { url: site.url('/app-shell') });
    assert.equal(res.status, 503);
    assert.match(res.body.attempts[1].detail, /BROWSER_POOL_SIZE=0/);
  });
});
