// POST /fetch with fetcher "browser" when the page cannot be loaded: the guard's refusals and the network's failures
// come back with the html fetcher's code and status, never as content (Chromium's error page), never cached or billed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { startFetcherSite, startSecretServer, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { browserSkip } from '../fetchers/chromium.js';
import { findClosedPort } from '../net/loopback.js';

const skip = browserSkip();
let site: FetcherSite;
let secret: Awaited<ReturnType<typeof startSecretServer>>;
let api: TestApp;
let apiKey: string;
let closedPort: number;

if (!skip) {
  before(
    async () => {
      secret = await startSecretServer('127.0.0.2');
      site = await startFetcherSite({ secret: secret.origin });
      closedPort = await findClosedPort();
      // The guard on, with 127.0.0.1 standing for the public internet and 127.0.0.2 for an internal address.
      api = await buildTestApp(
        { after },
        { FETCH_ALLOW_PRIVATE_NETWORKS: '0', ROBOTS_TXT: 'ignore', BROWSER_POOL_SIZE: '1' },
        { addresses: { isBlocked: (ip) => ip !== '127.0.0.1' } },
      );
      ({ apiKey } = await signUp(api));
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await site.close();
    await secret.close();
  });
}

async function fetchWith(fetcher: string, url: string) {
  return api.request('POST', '/fetch', { url, fetcher }, withKey(apiKey));
}

async function creditsUsed(): Promise<number> {
  const res = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
  assert.equal(res.status, 200, res.text);
  return res.body.credits_used;
}

/** Whether anything was cached for the URL under any fetcher: DELETE /cache removes every fetcher's copy, says so. */
async function wasCached(url: string): Promise<boolean> {
  const res = await api.request('DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey));
  assert.equal(res.status, 200, res.text);
  return res.body.deleted;
}

async function assertNotKept(url: string): Promise<void> {
  assert.equal(await wasCached(url), false, `${url} must not be cached`);
}

describe('browser failures over HTTP', { skip, timeout: 120_000 }, () => {
  test('a redirect to a guard-blocked address: the same 403 blocked_url as html, nothing reaches it', async () => {
    const url = site.url(`/redirect?to=${encodeURIComponent(secret.url('/'))}`);
    const credits = await creditsUsed();
    const html = await fetchWith('html', url);
    const browser = await fetchWith('browser', url);
    assert.equal(html.status, 403, html.text);
    assert.deepEqual([browser.status, browser.body.code], [html.status, html.body.code], browser.text);
    assert.match(browser.body.detail, /127\.0\.0\.2 is a private or reserved address/);
    assert.equal(secret.hits(), 0);
    await assertNotKept(url);
    assert.equal(await creditsUsed(), credits, 'failures are free');
  });

  test("a page that navigates by script or meta refresh to a blocked address is blocked_url, not Chromium's error page", async () => {
    const credits = await creditsUsed();
    for (const path of ['/script-redirect', '/meta-refresh']) {
      const url = site.url(`${path}?to=${encodeURIComponent(secret.url('/'))}`);
      const res = await fetchWith('browser', url);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.body.code, 'blocked_url');
      assert.doesNotMatch(res.text, /ERR_BLOCKED_BY_CLIENT|blocked by Chromium/);
      await assertNotKept(url);
    }
    assert.equal(secret.hits(), 0);
    assert.equal(await creditsUsed(), credits);
  });

  test('a host refusing the connection: the same upstream code and status as html, not "blocked"', async () => {
    const url = `http://127.0.0.1:${closedPort}/page`;
    const credits = await creditsUsed();
    const html = await fetchWith('html', url);
    assert.equal(html.body.code, 'upstream_unreachable', html.text);
    for (const target of [url, site.url(`/script-redirect?to=${encodeURIComponent(url)}`)]) {
      const browser = await fetchWith('browser', target);
      assert.deepEqual(
        [browser.status, browser.body.code],
        [html.status, html.body.code],
        `${target}: ${browser.text}`,
      );
      assert.match(browser.body.detail, /refused the connection/);
      await assertNotKept(target);
    }
    assert.equal(await creditsUsed(), credits);
  });

  test('a name that does not resolve: the same upstream_unreachable as html', async () => {
    const url = 'http://no-such-host.invalid/page';
    const html = await fetchWith('html', url);
    const browser = await fetchWith('browser', url);
    assert.equal(html.body.code, 'upstream_unreachable', html.text);
    assert.deepEqual(
      [browser.status, browser.body.code, browser.body.detail],
      [html.status, html.body.code, html.body.detail],
    );
  });

  test('the same page that loads is content, billed and cached (the failures above are not a broken browser)', async () => {
    const url = site.url('/article');
    const res = await fetchWith('browser', url);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'browser');
    assert.equal(await wasCached(url), true);
    assert.ok((await creditsUsed()) > 0);
  });
});
