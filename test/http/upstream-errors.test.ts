// What a remote site can do wrong becomes a clear error with the right status; never a 500.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp({
  FETCH_TIMEOUT_MS: '400',
  FETCH_MAX_BYTES: '65536',
  FETCH_MAX_REDIRECTS: '3',
});

describe('upstream failures', () => {
  for (const status of [404, 500, 503]) {
    test(`a ${status} from the site is 502 upstream_status`, async () => {
      const res = await api.post('/fetch', { url: site.url(`/status/${status}`) });
      assert.equal(res.status, 502);
      assert.equal(res.body.code, 'upstream_status');
      assert.equal(res.body.upstream_status, status);
      assert.match(res.body.detail, new RegExp(String(status)));
      assert.equal(typeof res.body.retry_hint, 'string');
    });
  }

  test('error pages are not cached', async () => {
    await api.post('/fetch', { url: site.url('/status/500') });
    const status = await api.get(`/cache?url=${encodeURIComponent(site.url('/status/500'))}`);
    assert.equal(status.body.cached, false);
  });

  // The site answers after 3 s, past the test app's fetch deadline: a 504 rather than its page is the proof.
  test('a slow site is 504 upstream_timeout', async () => {
    const res = await api.post('/fetch', { url: site.url('/delay/3000') });
    assert.equal(res.status, 504);
    assert.equal(res.body.code, 'upstream_timeout');
    assert.ok(res.body.retry_hint);
  });

  test('a refused connection is 502 upstream_unreachable', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const res = await api.post('/fetch', { url: `http://127.0.0.1:${port}/` });
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'upstream_unreachable');
  });

  test('an unknown host is 502 upstream_unreachable', async () => {
    const res = await api.post('/fetch', { url: 'http://no-such-host.invalid/' });
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'upstream_unreachable');
  });

  test('an archive is 415 unsupported_content; an image that cannot be decoded is 422 unreadable_document', async () => {
    const archive = await api.post('/fetch', { url: site.url('/archive.zip') });
    assert.equal(archive.status, 415, archive.text);
    assert.equal(archive.body.code, 'unsupported_content');
    assert.match(archive.body.detail, /application\/zip/);
    // The fixture's PNG is its signature alone: OCR reads images, and this one has nothing to read.
    const image = await api.post('/fetch', { url: site.url('/image.png') });
    assert.equal(image.status, 422, image.text);
    assert.equal(image.body.code, 'unreadable_document');
    assert.match(image.body.detail, /the image file cannot be read/);
  });

  test('too many redirects is an error, not a loop, and its hint says so', async () => {
    const res = await api.post('/fetch', { url: site.url('/loop') });
    assert.equal(res.status, 502);
    assert.match(res.body.detail, /redirect/i);
    assert.match(res.body.retry_hint, /redirects in a loop/);
  });

  test('a redirect without a Location is the site\'s status, not its "moved" notice as content', async () => {
    const res = await api.post('/fetch', { url: site.url('/moved-nowhere') });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.code, 'upstream_status');
    assert.equal(res.body.upstream_status, 302);
  });

  test('a redirect to a javascript: address is refused with a hint about the scheme, not about private networks', async () => {
    const res = await api.post('/fetch', { url: site.url('/to-javascript') });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.code, 'blocked_url');
    assert.match(res.body.retry_hint, /only http and https/);
  });

  test('a body over FETCH_MAX_BYTES is cut there and still extracted', async () => {
    const res = await api.post('/fetch', { url: site.url('/big') });
    assert.equal(res.status, 200);
    assert.equal(res.body.fetch_info.body_truncated, true);
    assert.ok(res.body.fetch_info.bytes <= 65536);
    assert.match(res.body.markdown, /A long paragraph of words/);
  });
});
