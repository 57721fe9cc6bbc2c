// POST /fetch with a self-hosted reader provider that follows redirects to internal addresses itself: the redirect
// chain is resolved with the guarded client first, so a hop into an internal address is the guard's 403 blocked_url
// before the provider is asked (whether or not it reports its final URL), never served, cached or billed; the provider
// is handed the URL where the chain ended; what only the provider is shown is refused when it reports its final URL.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import {
  startFetcherSite,
  startReaderStandIn,
  startSecretServer,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let secret: Awaited<ReturnType<typeof startSecretServer>>;
let reader: ReaderStandIn;
let api: TestApp;
let apiKey: string;

before(async () => {
  secret = await startSecretServer('127.0.0.2');
  site = await startFetcherSite({ secret: secret.origin });
  reader = await startReaderStandIn('k');
  // The guard on, with 127.0.0.1 standing for the public internet and 127.0.0.2 for an internal address.
  const env = {
    FETCH_ALLOW_PRIVATE_NETWORKS: '0',
    ROBOTS_TXT: 'ignore',
    READER_BASE_URL: reader.baseUrl,
    READER_API_KEY: 'k',
    BROWSER_POOL_SIZE: '0',
  };
  api = await buildTestApp({ after }, env, { addresses: { isBlocked: (ip) => ip !== '127.0.0.1' } });
  ({ apiKey } = await signUp(api));
});
after(async () => {
  await Promise.all([site.close(), secret.close(), reader.close()]);
});

const usage = async () => (await api.request('GET', '/account/usage', undefined, withKey(apiKey))).body.credits_used;
const fetchPage = (body: Record<string, unknown>) => api.request('POST', '/fetch', body, withKey(apiKey));
const redirect = (to: string, status = 302) => site.url(`/redirect?status=${status}&to=${encodeURIComponent(to)}`);

test('a redirect into an internal address is 403 blocked_url before the reader is asked, with or without its final URL', async () => {
  const inward = [
    ...[301, 302, 303, 307, 308].map((status) => redirect(secret.url('/admin'), status)),
    // Two hops: the first stays on the public site.
    redirect(redirect(secret.url('/admin'))),
  ];
  for (const reportsFinalUrl of [false, true]) {
    reader.setReportsFinalUrl(reportsFinalUrl);
    for (const url of inward) {
      const [credits, readerHits, secretHits] = [await usage(), reader.hits(), secret.hits()];
      const res = await fetchPage({ url, fetcher: 'reader' });
      const which = `${url} (final URL reported: ${reportsFinalUrl})`;
      assert.equal(res.status, 403, `${which}: ${res.text}`);
      assert.equal(res.body.code, 'blocked_url', which);
      assert.match(res.body.detail, /^127\.0\.0\.2 is a private or reserved address/, which);
      assert.ok(!res.text.includes('TOP-SECRET'), which);
      assert.equal(reader.hits(), readerHits, `${which}: the reader was never asked`);
      assert.equal(secret.hits(), secretHits, `${which}: the internal server was never reached`);
      const cached = await api.request('DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey));
      assert.equal(cached.body.deleted, false, which);
      assert.equal(await usage(), credits, which);
    }
  }
  reader.setReportsFinalUrl(true);
});

test('the reader is handed the URL where the redirects ended, forced and as a fallback', async () => {
  reader.setReportsFinalUrl(false);
  try {
    const forced = await fetchPage({ url: redirect('/article', 301), fetcher: 'reader' });
    assert.equal(forced.status, 200, forced.text);
    assert.equal(reader.requested.at(-1), site.url('/article'));
    assert.equal(forced.body.metadata.url, site.url('/article'));
    assert.equal(forced.body.fetch_info.fetcher_used, 'reader');
    assert.match(forced.body.markdown, /Fetched through the reader provider/);

    // /forbidden refuses us (403), so the router moves on to the reader, with the URL that answered 403.
    const fallback = await fetchPage({ url: redirect('/forbidden') });
    assert.equal(fallback.status, 200, fallback.text);
    assert.equal(reader.requested.at(-1), site.url('/forbidden'));
    assert.equal(fallback.body.metadata.url, site.url('/forbidden'));
    assert.equal(fallback.body.fetch_info.fetcher_used, 'reader');
  } finally {
    reader.setReportsFinalUrl(true);
  }
});

test('a redirect shown to the reader alone is refused when the provider reports its final URL', async () => {
  // The site refuses us and redirects everyone else inward: only the provider's report tells. A provider that does not
  // report it has followed the redirect unseen, which is why a self-hosted one must guard itself (README).
  const url = site.url(`/redirect-others?to=${encodeURIComponent(secret.url('/admin'))}`);
  const credits = await usage();
  const res = await fetchPage({ url });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'blocked_url');
  assert.match(res.body.detail, /reader provider was led from 127\.0\.0\.1:\d+ to 127\.0\.0\.2:\d+/);
  assert.ok(!res.text.includes('TOP-SECRET'));
  assert.equal(await usage(), credits);
});

test('an internal target is refused before the reader is asked', async () => {
  const before = reader.hits();
  const res = await fetchPage({ url: secret.url('/admin'), fetcher: 'reader' });
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'blocked_url');
  assert.equal(reader.hits(), before);
});
