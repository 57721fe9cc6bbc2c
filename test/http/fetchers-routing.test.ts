// POST /fetch chooses the fetcher: html for pages with content (short ones too), browser for app shells, pdf for PDFs
// however served, reader for sites that refuse us; fetch_info, attempts and credits tell what happened.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkip, CHROMIUM_PATH } from '../fetchers/chromium.js';
import {
  startFetcherSite,
  startReaderStandIn,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let reader: ReaderStandIn;
let api: TestApp;
before(async () => {
  site = await startFetcherSite();
  reader = await startReaderStandIn('test-reader-key');
  api = await buildTestApp(
    { after },
    { READER_BASE_URL: reader.baseUrl, READER_API_KEY: 'test-reader-key', BROWSER_POOL_SIZE: '2', CHROMIUM_PATH },
  );
});
after(async () => {
  await site.close();
  await reader.close();
});

const fetchUrl = (path: string, extra: Record<string, unknown> = {}) =>
  api.post('/fetch', { url: site.url(path), ...extra });

describe('html', () => {
  test('an article: html, one credit, no attempts listed', async () => {
    const res = await fetchUrl('/article');
    assert.equal(res.status, 200);
    assert.equal(res.body.fetch_info.fetcher_used, 'html');
    assert.equal(res.body.fetch_info.attempts, undefined);
    assert.equal(res.body.credits, 1);
    assert.equal(res.body.metadata.page_count, undefined);
  });

  for (const path of ['/short-real', '/short-analytics', '/ssr-next']) {
    test(`${path} is short or script-heavy but real: html, never the browser`, async () => {
      const res = await fetchUrl(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.fetcher_used, 'html');
      assert.equal(res.body.fetch_info.attempts, undefined);
    });
  }

  test('a cache hit costs 0.1 credit', async () => {
    await fetchUrl('/article');
    const res = await fetchUrl('/article');
    assert.equal(res.body.cache.hit, true);
    assert.equal(res.body.credits, 0.1);
  });
});

describe('pdf', () => {
  for (const [name, path] of [
    ['by extension', '/report.pdf'],
    ['by content type only (octet-stream, %PDF- magic)', '/download?id=7'],
  ] as const) {
    test(name, async () => {
      const res = await fetchUrl(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
      assert.equal(res.body.credits, 2);
      assert.equal(res.body.metadata.title, 'Field Guide to Balcony Tomatoes');
      assert.equal(res.body.metadata.author, 'Ada Gardener');
      assert.equal(res.body.metadata.page_count, 3);
      assert.match(res.body.markdown, /^# Field Guide to Balcony Tomatoes\n\n## Sun and soil/);
      assert.doesNotMatch(res.body.markdown, /<!-- page/, 'page marks only on request');
    });
  }

  test('a scanned PDF is 422 no_text_layer, not cached', async () => {
    const res = await fetchUrl('/scanned.pdf');
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'no_text_layer');
    assert.match(res.body.detail, /without a text layer/);
    assert.ok(res.body.retry_hint);
    const cached = await api.get(`/cache?url=${encodeURIComponent(site.url('/scanned.pdf'))}`);
    assert.equal(cached.body.cached, false);
  });
});

describe('reader fallback', () => {
  test('a Cloudflare challenge goes to the reader: 2 credits, attempts say why', async () => {
    const res = await fetchUrl('/challenge');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'reader');
    assert.equal(res.body.credits, 2);
    assert.match(res.body.markdown, /Fetched through the reader provider/);
    const attempts = res.body.fetch_info.attempts;
    assert.deepEqual(
      attempts.map((a: { fetcher: string; outcome: string }) => [a.fetcher, a.outcome]),
      [
        ['html', 'challenge'],
        ['reader', 'ok'],
      ],
    );
    assert.equal(typeof attempts[0].ms, 'number');
    assert.equal(reader.requested.at(-1), site.url('/challenge'));
  });

  test('a 403 without challenge markers goes to the reader too', async () => {
    const res = await fetchUrl('/forbidden');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'reader');
    assert.equal(res.body.fetch_info.attempts[0].outcome, 'upstream_status');
  });

  test('when the reader fails as well: 502 blocked_by_site, with the attempts in the error', async () => {
    const res = await fetchUrl('/challenge?reader-down');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'blocked_by_site');
    assert.match(res.body.detail, /bot challenge.*reader: reader provider: answered 503/);
    assert.deepEqual(
      res.body.attempts.map((a: { outcome: string }) => a.outcome),
      ['challenge', 'reader_failed'],
    );
  });
});

describe('the fetcher field', () => {
  test('is documented in the OpenAPI schema with its values and default', async () => {
    const spec = (await api.get('/openapi.json')).body;
    const schema = spec.paths['/fetch'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(schema.properties.fetcher.enum, ['auto', 'html', 'reader', 'browser', 'pdf']);
    assert.equal(schema.properties.fetcher.default, 'auto');
  });

  test('an unknown value is a 422', async () => {
    const res = await fetchUrl('/article', { fetcher: 'curl' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'fetcher']);
  });

  test('forcing reader uses it, and its result is cached apart from auto', async () => {
    const viaReader = await fetchUrl('/article', { fetcher: 'reader' });
    assert.equal(viaReader.body.fetch_info.fetcher_used, 'reader');
    const viaAuto = await fetchUrl('/article');
    assert.equal(viaAuto.body.fetch_info.fetcher_used, 'html');
    const again = await fetchUrl('/article', { fetcher: 'reader' });
    assert.equal(again.body.cache.hit, true);
    assert.equal(again.body.fetch_info.fetcher_used, 'reader');
    const { apiKey } = await signUp(api);
    const q = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
    const deleted = await api.request('DELETE', q, undefined, withKey(apiKey));
    assert.equal(deleted.body.deleted, true);
    const fresh = await fetchUrl('/article', { fetcher: 'reader' });
    assert.equal(fresh.body.cache.hit, false, 'DELETE /cache removed the forced copy too');
  });

  test('forcing pdf on a page that is not one is 415; forcing html on a challenge is still 502 blocked_by_site', async () => {
    const pdf = await fetchUrl('/article', { fetcher: 'pdf' });
    assert.equal(pdf.status, 415);
    assert.equal(pdf.body.code, 'unsupported_content');
    const html = await fetchUrl('/challenge', { fetcher: 'html' });
    assert.equal(html.status, 502);
    assert.equal(html.body.code, 'blocked_by_site');
  });
});

describe('browser', { skip: browserSkip() }, () => {
  test('an app shell is rendered by the browser: 5 credits, attempts html → browser', async () => {
    const res = await fetchUrl('/app-shell');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'browser');
    assert.equal(res.body.credits, 5);
    assert.match(res.body.markdown, /Rendered by Script/);
    assert.deepEqual(
      res.body.fetch_info.attempts.map((a: { fetcher: string; outcome: string }) => [a.fetcher, a.outcome]),
      [
        ['html', 'app_shell'],
        ['browser', 'ok'],
      ],
    );
    assert.match(res.body.fetch_info.attempts[0].detail, /empty mount point/);
  });

  test('a body written by an inline script is rendered too', async () => {
    const res = await fetchUrl('/inline-shell');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'browser');
    assert.match(res.body.markdown, /Inline Rendered Story/);
  });

  test('forcing browser on an ordinary page uses it', async () => {
    const res = await fetchUrl('/short-real', { fetcher: 'browser' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'browser');
  });
});
