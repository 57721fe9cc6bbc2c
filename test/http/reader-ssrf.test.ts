// POST /fetch with the reader when a self-hosted provider follows a redirect to an internal address: the answer is
// refused with the guard's 403 blocked_url, never served, cached or billed; an internal target never reaches it.
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

test('a reader answer whose final URL the guard refuses is 403 blocked_url: not served, cached or billed', async () => {
  const url = site.url(`/redirect?to=${encodeURIComponent(secret.url('/admin'))}`);
  const credits = await usage();
  const res = await api.request('POST', '/fetch', { url, fetcher: 'reader' }, withKey(apiKey));
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'blocked_url');
  assert.match(res.body.detail, /reader provider was led from/);
  assert.ok(!res.text.includes('TOP-SECRET'));
  assert.equal(
    (await api.request('DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey))).body.deleted,
    false,
  );
  assert.equal(await usage(), credits);
});

test('an internal target is refused before the reader is asked', async () => {
  const before = reader.hits();
  const res = await api.request('POST', '/fetch', { url: secret.url('/admin'), fetcher: 'reader' }, withKey(apiKey));
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'blocked_url');
  assert.equal(reader.hits(), before);
});
