// DOCX through POST /fetch: read by what its bytes are (whatever it is served as), with its headings, list, table,
// link and footnote; and the files that must not be read: an HTML page served as a DOCX, a corrupt or truncated one,
// zip bombs by size and by entry count (422 unreadable_document, never billed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeDocx, REPORT_SENTENCE } from '../helpers/documents/docx.js';
import { withInflatingEntry, withManyEntries } from '../helpers/documents/zip-bombs.js';
import { assertUnreadable, MEDIA, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: DocumentSite;
let api: TestApp;
before(async () => {
  const docx = await makeDocx();
  site = await startDocumentSite({
    '/report.docx': { type: MEDIA.docx, body: docx },
    '/download': { type: MEDIA.octet, body: docx },
    '/untyped': { type: undefined, body: docx },
    '/as-html': { type: 'text/html', body: docx },
    '/error-page.docx': {
      type: MEDIA.docx,
      body: '<!doctype html><html><body><h1>Gone</h1><p>Moved away.</p></body></html>',
    },
    '/truncated.docx': { type: MEDIA.docx, body: docx.subarray(0, Math.floor(docx.length / 2)) },
    '/garbage.docx': { type: MEDIA.docx, body: Buffer.from('this is not a zip archive at all, only text') },
    '/bomb.docx': { type: MEDIA.docx, body: withInflatingEntry(docx, 'word/media/zeros.bin', 8 * 1024 * 1024) },
    '/entries.docx': { type: MEDIA.docx, body: withManyEntries(docx, 300) },
  });
  api = await buildTestApp(
    { after },
    { DOCUMENT_MAX_UNCOMPRESSED_BYTES: String(4 * 1024 * 1024), DOCUMENT_MAX_ENTRIES: '200' },
  );
});
after(() => site.close());

const fetchPath = (path: string, headers?: Record<string, string>) =>
  api.request('POST', '/fetch', { url: site.url(path) }, headers);

describe('a DOCX', () => {
  test('becomes Markdown with its title, headings, list, table, link and footnote, read by the pdf fetcher', async () => {
    const res = await fetchPath('/report.docx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'docx');
    assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
    assert.equal(res.body.metadata.title, 'Balcony Tomato Report');
    assert.equal(res.body.metadata.author, 'Ada Gardener');
    const md: string = res.body.markdown;
    // The document's own first heading leads; its title is in the metadata.
    assert.ok(md.startsWith('# Sun and soil\n\n'), md);
    assert.ok(md.includes(`${REPORT_SENTENCE}[^1]`), md);
    assert.ok(md.includes('- Deep pots with drainage holes\n- A good potting mix'), md);
    assert.ok(md.includes('## Watering'));
    assert.ok(md.includes('| Month | Litres per week |\n| --- | --- |\n| June | 12 |\n| July | 18 |'), md);
    assert.ok(md.includes('[growing guide](https://example.org/guide)'));
    assert.ok(md.endsWith('[^1]: Measured on a balcony in Lyon, 2024.'), md);
    assert.ok(res.body.metadata.token_count > 50);
  });

  for (const [path, served] of [
    ['/download', 'application/octet-stream'],
    ['/untyped', 'no Content-Type'],
    ['/as-html', 'text/html'],
  ] as const) {
    test(`served as ${served}, is still read as a DOCX by its bytes`, async () => {
      const res = await fetchPath(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, 'docx');
      assert.ok(res.body.markdown.includes('## Watering'));
    });
  }

  test('an HTML page served as a DOCX is read as the HTML it is', async () => {
    const res = await fetchPath('/error-page.docx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'html');
    assert.equal(res.body.fetch_info.fetcher_used, 'html');
    assert.match(res.body.markdown, /Moved away\./);
  });
});

describe('a DOCX that cannot be read', () => {
  for (const [path, why] of [
    ['/truncated.docx', /the DOCX file is not a readable zip archive \(corrupt or truncated\)/],
    ['/garbage.docx', /the DOCX file is not a readable zip archive/],
    ['/bomb.docx', /the DOCX file unpacks to more than 4194304 bytes/],
    ['/entries.docx', /the DOCX file holds more than 200 entries/],
  ] as const) {
    test(`${path}: 422 unreadable_document naming the format, not billed`, async () => {
      await assertUnreadable(api, site.url(path), why);
    });
  }
});
