// EPUB through POST /fetch: the chapters in the spine's order (the zip holds them backwards), the package's metadata,
// links inside the book as text and pictures as alt text; and the books that must not be read (422, not billed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import { makeEpub, TOMATO_BOOK } from '../helpers/documents/epub.js';
import { withInflatingEntry } from '../helpers/documents/zip-bombs.js';
import { assertUnreadable, MEDIA, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/** The book without its package document: a zip that says it is an EPUB and cannot be read as one. */
function withoutPackage(epub: Buffer): Buffer {
  const entries = unzipSync(epub);
  const mimetype = entries.mimetype!;
  delete entries.mimetype;
  delete entries['OEBPS/content.opf'];
  return Buffer.from(zipSync({ mimetype: [mimetype, { level: 0 }], ...entries }));
}

let site: DocumentSite;
let api: TestApp;
before(async () => {
  const epub = makeEpub();
  site = await startDocumentSite({
    '/book.epub': { type: MEDIA.epub, body: epub },
    '/download': { type: MEDIA.octet, body: epub },
    '/truncated.epub': { type: MEDIA.epub, body: epub.subarray(0, Math.floor(epub.length / 2)) },
    '/no-package.epub': { type: MEDIA.epub, body: withoutPackage(epub) },
    '/bomb.epub': { type: MEDIA.epub, body: withInflatingEntry(epub, 'OEBPS/chapter-9.xhtml', 8 * 1024 * 1024) },
  });
  api = await buildTestApp({ after }, { DOCUMENT_MAX_UNCOMPRESSED_BYTES: String(4 * 1024 * 1024) });
});
after(() => site.close());

const fetchPath = (path: string, headers?: Record<string, string>) =>
  api.request('POST', '/fetch', { url: site.url(path) }, headers);

const BOOK_MARKDOWN = `# Chapter 1: Sun

Tomatoes need at least six hours of direct sun every day.

A sunny balcony with three pots

Read on in the chapter on water, or at [the sun guide](https://example.org/sun).

# Chapter 2: Water

Water deeply twice a week; *more* in July.

# Chapter 3: Harvest

Pick the fruit when it is fully coloured and slightly soft.`;

describe('an EPUB', () => {
  test('becomes its chapters in spine order, with the metadata of its package', async () => {
    const res = await fetchPath('/book.epub');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'epub');
    assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
    assert.equal(res.body.markdown, BOOK_MARKDOWN);
    const { metadata } = res.body;
    assert.equal(metadata.title, TOMATO_BOOK.title);
    assert.equal(metadata.author, TOMATO_BOOK.author);
    assert.equal(metadata.language, TOMATO_BOOK.language);
    assert.equal(metadata.description, TOMATO_BOOK.description);
    assert.equal(metadata.published_at, '2024-03-01T00:00:00.000Z');
  });

  test('served as application/octet-stream, is still read as an EPUB by its bytes', async () => {
    const res = await fetchPath('/download');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'epub');
    assert.equal(res.body.markdown, BOOK_MARKDOWN);
  });
});

describe('an EPUB that cannot be read', () => {
  for (const [path, why] of [
    ['/truncated.epub', /the EPUB file is not a readable zip archive \(corrupt or truncated\)/],
    ['/no-package.epub', /the EPUB file has no OEBPS\/content\.opf/],
    ['/bomb.epub', /the EPUB file unpacks to more than 4194304 bytes/],
  ] as const) {
    test(`${path}: 422 unreadable_document naming the format, not billed`, async () => {
      await assertUnreadable(api, site.url(path), why);
    });
  }
});
