// POST /fetch: the page's own metadata (author, published_at, site_name, canonical_url, image) in `metadata`, null
// where the page does not say, what PDFs and the reader provider know, and null for pages cached before these
// fields were read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pageCacheKey } from '../../src/services/page-cache.js';
import type { StoredPage } from '../../src/services/render.js';
import {
  startFetcherSite,
  startReaderStandIn,
  type FetcherSite,
  type ReaderStandIn,
} from '../helpers/fixture-fetchers.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FixtureSite;
let fetcherSite: FetcherSite;
let reader: ReaderStandIn;
let api: TestApp;
before(async () => {
  site = await startFixtureSite();
  fetcherSite = await startFetcherSite();
  reader = await startReaderStandIn('test-reader-key');
  api = await buildTestApp({ after }, { READER_BASE_URL: reader.baseUrl, READER_API_KEY: 'test-reader-key' });
});
after(async () => {
  await site.close();
  await fetcherSite.close();
  await reader.close();
});

const DETAIL_FIELDS = ['author', 'published_at', 'site_name', 'canonical_url', 'image'];
const detailsOf = (metadata: Record<string, unknown>) =>
  Object.fromEntries(DETAIL_FIELDS.map((field) => [field, metadata[field]]));

test('a page that describes itself: JSON-LD author, date and publisher, OpenGraph image, canonical link', async () => {
  const res = await api.post('/fetch', { url: site.url('/metadata') });
  assert.equal(res.status, 200);
  const { metadata, markdown } = res.body;
  assert.equal(metadata.title, 'Pruning Tomatoes');
  assert.equal(metadata.author, 'Ada Gardener, Ben Sower');
  assert.equal(metadata.published_at, '2026-05-04T08:30:00+02:00');
  assert.equal(metadata.site_name, 'Example Garden Press');
  assert.equal(metadata.canonical_url, site.url('/guides/pruning'));
  assert.equal(metadata.image, site.url('/img/pruning.jpg'));
  assert.ok(!markdown.includes('BlogPosting'), 'JSON-LD is not content');
  // The same fields in batch items, which share the schema.
  const batch = await api.post('/fetch/batch', { urls: [site.url('/metadata')] });
  assert.equal(batch.status, 200);
  assert.equal(batch.body.results[0].metadata.author, 'Ada Gardener, Ben Sower');
});

test('a page that says nothing of these has them all null', async () => {
  const res = await api.post('/fetch', { url: site.url('/article') });
  assert.equal(res.status, 200);
  assert.deepEqual(detailsOf(res.body.metadata), Object.fromEntries(DETAIL_FIELDS.map((field) => [field, null])));
});

test('a PDF gives its author and creation date; the reader provider its publication date', async () => {
  const pdf = await api.post('/fetch', { url: fetcherSite.url('/report.pdf') });
  assert.equal(pdf.status, 200, pdf.text);
  const { author, published_at, ...rest } = detailsOf(pdf.body.metadata);
  assert.equal(author, 'Ada Gardener');
  // pdfkit stamps the document with the time it was made, in UTC.
  assert.match(String(published_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  assert.ok(Math.abs(Date.parse(String(published_at)) - Date.now()) < 3_600_000, String(published_at));
  assert.deepEqual(rest, { site_name: null, canonical_url: null, image: null });
  const viaReader = await api.post('/fetch', { url: fetcherSite.url('/article'), fetcher: 'reader' });
  assert.equal(viaReader.status, 200, viaReader.text);
  assert.deepEqual(detailsOf(viaReader.body.metadata), {
    author: null,
    published_at: '2026-05-04T06:30:00Z',
    site_name: null,
    canonical_url: null,
    image: null,
  });
});

test('a page cached before these fields existed renders them as null', async () => {
  const url = site.url('/unique/old-entry');
  assert.equal((await api.post('/fetch', { url })).status, 200);
  const key = pageCacheKey(new URL(url));
  const entry = await api.services.cache.get<StoredPage>(key);
  assert.ok(entry);
  const { author: _a, publishedAt: _p, siteName: _s, canonicalUrl: _c, image: _i, ...old } = entry.value;
  await api.services.cache.set(key, { ...old, title: 'Old entry' }, 3600);
  const res = await api.post('/fetch', { url });
  assert.equal(res.status, 200);
  assert.equal(res.body.cache.hit, true);
  assert.equal(res.body.metadata.title, 'Old entry');
  for (const field of DETAIL_FIELDS) assert.equal(res.body.metadata[field], null, field);
});
