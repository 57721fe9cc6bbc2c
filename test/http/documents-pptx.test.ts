// PPTX through POST /fetch: one section per slide in presentation order, with its title, bullets, table and notes,
// read by what its bytes are; and the decks that must not be read: corrupt, truncated, zip bombs (422, not billed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { makePptx, TOMATO_DECK } from '../helpers/documents/pptx.js';
import { withInflatingEntry, withManyEntries } from '../helpers/documents/zip-bombs.js';
import { assertUnreadable, MEDIA, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

/** The same deck with its slide files renamed in reverse, so file order and presentation order disagree. */
function withSlideFilesReversed(pptx: Buffer): Buffer {
  const entries: Zippable = {};
  const count = TOMATO_DECK.slides.length;
  const renamed = (text: string) =>
    text.replace(/slide(\d+)\.xml/g, (_, n: string) => `slide${count + 1 - Number(n)}.xml`);
  for (const [name, bytes] of Object.entries(unzipSync(pptx))) {
    const rewritten = /\.(xml|rels)$/.test(name) ? Buffer.from(renamed(Buffer.from(bytes).toString('utf8'))) : bytes;
    entries[name.startsWith('ppt/slides/') ? renamed(name) : name] = new Uint8Array(rewritten);
  }
  return Buffer.from(zipSync(entries));
}

function withoutProperties(pptx: Buffer): Buffer {
  const entries = unzipSync(pptx);
  delete entries['docProps/core.xml'];
  return Buffer.from(zipSync(entries));
}

let site: DocumentSite;
let api: TestApp;
before(async () => {
  const pptx = await makePptx();
  site = await startDocumentSite({
    '/talk.pptx': { type: MEDIA.pptx, body: pptx },
    '/download': { type: MEDIA.octet, body: pptx },
    '/reordered.pptx': { type: MEDIA.pptx, body: withSlideFilesReversed(pptx) },
    '/untitled.pptx': { type: MEDIA.pptx, body: withoutProperties(pptx) },
    '/truncated.pptx': { type: MEDIA.pptx, body: pptx.subarray(0, Math.floor(pptx.length / 2)) },
    '/garbage.pptx': { type: MEDIA.pptx, body: Buffer.from('not a presentation, only words') },
    '/bomb.pptx': { type: MEDIA.pptx, body: withInflatingEntry(pptx, 'ppt/slides/slide9.xml', 8 * 1024 * 1024) },
    '/picture-bomb.pptx': {
      type: MEDIA.pptx,
      body: withInflatingEntry(pptx, 'ppt/media/huge.png', 8 * 1024 * 1024),
    },
    '/entries.pptx': { type: MEDIA.pptx, body: withManyEntries(pptx, 300) },
  });
  api = await buildTestApp(
    { after },
    { DOCUMENT_MAX_UNCOMPRESSED_BYTES: String(4 * 1024 * 1024), DOCUMENT_MAX_ENTRIES: '200' },
  );
});
after(() => site.close());

const fetchPath = (path: string, headers?: Record<string, string>) =>
  api.request('POST', '/fetch', { url: site.url(path) }, headers);

/** What the tomato deck reads as, whole: the test of order, titles, bullets, table and notes at once. */
const TOMATO_DECK_MARKDOWN = `# Balcony Tomatoes, the Talk

## Slide 1: Why grow tomatoes

- Fresh fruit all summer
  - Cherry varieties crop early
- Little space needed

> **Notes:**
>
> Start with a show of hands: who grows anything on a balcony?

## Slide 2: Watering by month

| Month | Litres per week |
| --- | --- |
| June | 12 |
| July | 18 |

> **Notes:**
>
> July is the thirstiest month.

## Slide 3

An interlude without a title & \\<nothing> else.

## Slide 4: Questions

Thank you for listening.

[The growing guide](https://example.org/guide)`;

describe('a PPTX', () => {
  test('becomes one section per slide in order, with titles, nested bullets, a table, a link and notes', async () => {
    const res = await fetchPath('/talk.pptx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'pptx');
    assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
    assert.equal(res.body.metadata.title, TOMATO_DECK.title);
    assert.equal(res.body.metadata.author, TOMATO_DECK.author);
    assert.equal(res.body.metadata.description, TOMATO_DECK.subject);
    assert.equal(res.body.metadata.page_count, TOMATO_DECK.slides.length);
    assert.equal(res.body.markdown, TOMATO_DECK_MARKDOWN);
  });

  test('served as application/octet-stream, is still read as a PPTX by its bytes', async () => {
    const res = await fetchPath('/download');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'pptx');
    assert.equal(res.body.markdown, TOMATO_DECK_MARKDOWN);
  });

  test('slides follow the presentation, not the names of their files', async () => {
    const res = await fetchPath('/reordered.pptx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.markdown, TOMATO_DECK_MARKDOWN);
  });

  test('without a title of its own, the deck is named by its first slide', async () => {
    const res = await fetchPath('/untitled.pptx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.title, TOMATO_DECK.slides[0]!.title);
    assert.ok(res.body.markdown.startsWith(`# ${TOMATO_DECK.slides[0]!.title}\n\n## Slide 1: `), res.body.markdown);
  });

  test('a picture that would inflate past the limit is never inflated: the deck is read', async () => {
    const res = await fetchPath('/picture-bomb.pptx');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.markdown, TOMATO_DECK_MARKDOWN);
  });
});

describe('a PPTX that cannot be read', () => {
  for (const [path, why] of [
    ['/truncated.pptx', /the PPTX file is not a readable zip archive \(corrupt or truncated\)/],
    ['/garbage.pptx', /the PPTX file is not a readable zip archive/],
    ['/bomb.pptx', /the PPTX file unpacks to more than 4194304 bytes/],
    ['/entries.pptx', /the PPTX file holds more than 200 entries/],
  ] as const) {
    test(`${path}: 422 unreadable_document naming the format, not billed`, async () => {
      await assertUnreadable(api, site.url(path), why);
    });
  }
});
