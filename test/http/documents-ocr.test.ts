// OCR through POST /fetch: an image's text, whatever it is served as, priced as a rendered page; an image without text
// is empty content and not billed; with OCR off an image is unsupported. Scanned PDFs: only the pages without a text
// layer are read by OCR, each priced as a rendered page, at most OCR_MAX_PAGES of them, and the answer says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { browserSkip } from '../fetchers/chromium.js';
import { imagePdf, renderTextImages, type TextImage } from '../helpers/documents/scans.js';
import { MEDIA, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const LINES = ['Tomatoes need six hours of direct sun.', 'Water them deeply but not too often.'];
const SECOND = ['Basil likes the same warm corner.', 'Pinch its flowers to keep the leaves coming.'];
const TYPED = 'This page was typed, not scanned: it has a text layer of its own, so no OCR is needed to read it.';

function blankPng(): Buffer {
  const png = new PNG({ width: 400, height: 120 });
  png.data.fill(255);
  return PNG.sync.write(png);
}

const words = (text: string) => text.toLowerCase().match(/[a-z]+/g);

const skip = browserSkip();

describe('OCR of images', { skip, timeout: 300_000 }, () => {
  let site: DocumentSite;
  let api: TestApp;
  let off: TestApp;
  let image: TextImage;
  before(async () => {
    const [first, second, line] = await renderTextImages([LINES, SECOND, ['Page of a long scan.']]);
    image = first!;
    site = await startDocumentSite({
      '/scan.pdf': { type: 'application/pdf', body: await imagePdf([first!, second!], 'jpeg') },
      '/mixed.pdf': { type: 'application/pdf', body: await imagePdf([TYPED, second!]) },
      '/long-scan.pdf': { type: 'application/pdf', body: await imagePdf(Array(50).fill(line!)) },
      '/note.png': { type: 'image/png', body: image.png },
      '/photo': { type: MEDIA.octet, body: image.jpeg },
      '/blank.png': { type: 'image/png', body: blankPng() },
    });
    api = await buildTestApp({ after });
    off = await buildTestApp({ after }, { OCR_MAX_PAGES: '0' });
  });
  after(() => site.close());

  for (const [path, served] of [
    ['/note.png', 'a PNG served as image/png'],
    ['/photo', 'a JPEG served as application/octet-stream'],
  ] as const) {
    test(`${served}: its text, one OCR page, 5 credits`, async () => {
      const { apiKey } = await signUp(api);
      // A paid plan counts credits (the free tier counts fetches).
      await setPlan(api, apiKey, 'pro');
      const res = await api.request('POST', '/fetch', { url: site.url(path) }, withKey(apiKey));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, 'image');
      assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
      assert.equal(res.body.fetch_info.ocr_pages, 1);
      // OCR may add a stray mark; every word comes back, in order.
      assert.deepEqual(words(res.body.markdown), words(LINES.join(' ')));
      assert.equal(res.body.credits, 5);
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 5);
    });
  }

  test('an image without text: 422 empty_content, not billed', async () => {
    const { apiKey } = await signUp(api);
    const res = await api.request('POST', '/fetch', { url: site.url('/blank.png') }, withKey(apiKey));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'empty_content');
    const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
    assert.equal(usage.body.credits_used, 0);
  });

  test('with OCR_MAX_PAGES=0 an image is 415 unsupported_content', async () => {
    const res = await off.post('/fetch', { url: site.url('/note.png') });
    assert.equal(res.status, 415, res.text);
    assert.equal(res.body.code, 'unsupported_content');
  });

  test('a scanned PDF: every page by OCR, in order, 5 credits a page', async () => {
    const { apiKey } = await signUp(api);
    await setPlan(api, apiKey, 'pro');
    const res = await api.request('POST', '/fetch', { url: site.url('/scan.pdf') }, withKey(apiKey));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'pdf');
    assert.equal(res.body.fetch_info.ocr_pages, 2);
    assert.equal(res.body.metadata.page_count, 2);
    assert.deepEqual(words(res.body.markdown), words([...LINES, ...SECOND].join(' ')));
    assert.equal(res.body.credits, 10);
  });

  test('a PDF with a typed page and a scanned one: only the scan is read by OCR', async () => {
    const res = await api.post('/fetch', { url: site.url('/mixed.pdf') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.ocr_pages, 1);
    assert.ok(res.body.markdown.startsWith(TYPED), res.body.markdown);
    assert.deepEqual(words(res.body.markdown), words(`${TYPED} ${SECOND.join(' ')}`));
    assert.equal(res.body.credits, 5);
  });

  test('a scan of 50 pages with the cap at 20: reads 20 and says so', async () => {
    const res = await api.post('/fetch', { url: site.url('/long-scan.pdf') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.ocr_pages, 20);
    assert.equal(res.body.fetch_info.body_truncated, true);
    assert.equal(res.body.metadata.page_count, 50);
    assert.equal(res.body.markdown.match(/page of a long scan/gi)?.length, 20);
    assert.match(res.body.markdown, /30 more pages without a text layer were not read: OCR reads at most 20 pages/);
    assert.equal(res.body.credits, 100);
  });

  test('with OCR_MAX_PAGES=0 a scanned PDF is 422 no_text_layer', async () => {
    const res = await off.post('/fetch', { url: site.url('/scan.pdf') });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'no_text_layer');
    assert.match(res.body.detail, /OCR is off/);
  });
});
