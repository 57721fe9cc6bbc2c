// The reader client against a Jina-compatible stand-in: request shape, answers, and every failure as reader_failed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createReaderFetcher } from '../../src/fetchers/reader.js';
import { startReaderStandIn, type ReaderStandIn } from '../helpers/fixture-fetchers.js';

let reader: ReaderStandIn;
before(async () => {
  reader = await startReaderStandIn('reader-key');
});
after(() => reader.close());

const options = (apiKey: string | undefined) => ({
  baseUrl: reader.baseUrl,
  apiKey,
  timeoutMs: 2000,
  maxBytes: 1 << 20,
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
});
