// The reader client against a Jina-compatible stand-in: request shape, answers, every failure as reader_failed, and
// the SSRF guard on the target before the provider is asked and on the final URL it reports.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConversions } from '../../src/fetchers/conversions.js';
import { createReaderFetcher } from '../../src/fetchers/reader.js';
import { countTokens } from '../../src/tokens/count.js';
import { createAddressPolicy } from '../../src/net/guard.js';
import {
  startFetcherSite,
  startReaderStandIn,
  startSecretServer,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { loadConfig } from '../../src/config.js';
import { documentOptions } from '../../src/fetchers/index.js';

let reader: ReaderStandIn;
let site: FetcherSite;
let secret: Awaited<ReturnType<typeof startSecretServer>>;
before(async () => {
  reader = await startReaderStandIn('reader-key');
  secret = await startSecretServer('127.0.0.2');
  site = await startFetcherSite({ secret: secret.origin });
});
after(async () => {
  await reader.close();
  await site.close();
  await secret.close();
});

// 127.0.0.1 stands for the public internet, 127.0.0.2 for an internal address; *.example names resolve to the first,
// internal.example to the second.
const policy = createAddressPolicy({
  allowPrivateNetworks: false,
  isBlocked: (ip) => ip !== '127.0.0.1',
  resolveHost: async (hostname) => [
    { address: hostname === 'internal.example' ? '127.0.0.2' : '127.0.0.1', family: 4 },
  ],
});
// The provider's Markdown is converted on an extraction thread, as the service does.
const conversions = createConversions({
  workers: 1,
  queueMax: 100,
  timeoutMs: 60_000,
  wallTimeoutMs: 600_000,
  maxTasks: 1000,
  heapMb: 512,
  nice: 0,
  documents: documentOptions(loadConfig({})),
});
after(() => conversions.close());

const options = (apiKey: string | undefined) => ({
  baseUrl: reader.baseUrl,
  apiKey,
  timeoutMs: 2000,
  maxBytes: 1 << 20,
  policy,
  convert: conversions.reader,
});

describe('reader', () => {
  test('GET base + URL with the Bearer key and Accept: application/json → the page', async () => {
    const outcome = await createReaderFetcher(options('reader-key')).fetch(
      new URL('https://blocked.example/story?id=7'),
    );
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(reader.requested.at(-1), 'https://blocked.example/story?id=7');
    assert.equal(outcome.page.title, 'Reader Copy');
    assert.equal(outcome.page.url, 'https://blocked.example/story?id=7');
    assert.match(outcome.page.markdown, /^# Reader Copy\n\nFetched through the reader provider/);
    assert.equal(outcome.page.contentType, 'text/markdown');
    // Counted on the extraction thread with the Markdown, title heading included.
    assert.equal(outcome.page.tokens?.markdown, countTokens(outcome.page.markdown));
  });

  test('a wrong key, a provider error and an unreachable provider are reader_failed (502)', async () => {
    const wrongKey = await createReaderFetcher(options('nope')).fetch(new URL('https://a.example/'));
    assert.ok(!wrongKey.ok);
    assert.equal(wrongKey.failure.code, 'reader_failed');
    assert.match(wrongKey.failure.detail, /401.*invalid API key/);
    const down = await createReaderFetcher(options('reader-key')).fetch(new URL('https://a.example/reader-down'));
    assert.ok(!down.ok);
    assert.equal(down.failure.code, 'reader_failed');
    assert.equal(down.failure.retryable, true);
    const gone = await createReaderFetcher({ ...options('k'), baseUrl: 'http://127.0.0.1:9/r/' }).fetch(
      new URL('https://a.example/'),
    );
    assert.ok(!gone.ok);
    assert.equal(gone.failure.code, 'reader_failed');
  });

  test('not configured: unavailable, and never calls anyone', async () => {
    const fetcher = createReaderFetcher(options(undefined));
    assert.match(fetcher.unavailable() ?? '', /READER_API_KEY/);
    const before = reader.hits();
    const outcome = await fetcher.fetch(new URL('https://a.example/'));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'fetcher_unavailable');
    assert.equal(reader.hits(), before);
  });

  test('a target the guard refuses is blocked_url, and the provider is never asked', async () => {
    const before = reader.hits();
    for (const target of ['http://internal.example/admin', 'http://127.0.0.2/', 'file:///etc/passwd']) {
      const outcome = await createReaderFetcher(options('reader-key')).fetch(new URL(target));
      assert.ok(!outcome.ok, target);
      assert.equal(outcome.failure.code, 'blocked_url', target);
    }
    assert.equal(reader.hits(), before);
  });

  test('a provider that followed a redirect to an internal address: its answer is refused, not content', async () => {
    const target = new URL(site.url(`/redirect?to=${encodeURIComponent(secret.url('/admin'))}`));
    const outcome = await createReaderFetcher(options('reader-key')).fetch(target);
    assert.ok(!outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.failure.code, 'blocked_url');
    assert.match(outcome.failure.detail, /reader provider was led from 127\.0\.0\.1:\d+ to 127\.0\.0\.2:\d+/);
    assert.ok(!JSON.stringify(outcome).includes('TOP-SECRET'));
    // The stand-in did reach the internal server: only a reader that guards itself prevents that (docs/operations.md).
    assert.equal(secret.hits(), 1);
  });

  test('a redirect the provider followed to an allowed address is content, with the final URL', async () => {
    const outcome = await createReaderFetcher(options('reader-key')).fetch(new URL(site.url('/redirect?to=/article')));
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.page.url, site.url('/article'));
    assert.match(outcome.page.markdown, /six hours of direct sun/);
  });
});
