// The PDF fetcher on PDFs made at test time: structure, metadata, page marks, limits, and the failures.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { contextPages, convertPdf, usableTitle } from '../../src/fetchers/pdf.js';
import type { HttpResponse } from '../../src/net/safe-client.js';
import PDFDocument from 'pdfkit';
import { makeBookPdf, makeReportPdf, makeScannedPdf } from '../helpers/pdf-fixtures.js';

const response = (body: Buffer, extra: Partial<HttpResponse> = {}): HttpResponse => ({
  url: new URL('https://docs.example/guide.pdf'),
  status: 200,
  headers: { 'content-type': 'application/pdf' },
  body,
  bodyTruncated: false,
  redirects: 0,
  bytes: body.length,
  wireBytes: body.length,
  ...extra,
});

let report: Buffer;
before(async () => {
  report = await makeReportPdf();
});

describe('a PDF with a text layer', () => {
  test('becomes Markdown with headings, paragraphs, a list and a table', async () => {
    const outcome = await convertPdf(response(report), { maxPages: 300 });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const { markdown, title, author, pageCount } = outcome.page;
    assert.equal(title, 'Field Guide to Balcony Tomatoes');
    assert.equal(author, 'Ada Gardener');
    assert.equal(pageCount, 3);
    assert.match(markdown, /^# Field Guide to Balcony Tomatoes\n\n## Sun and soil\n\n/);
    assert.match(markdown, /its fruit never sweetens properly before/, 'hyphenation at the line end is undone');
    assert.match(
      markdown,
      /### What you need\n\n- A pot of at least 20 litres\n- Potting mix with compost\n- A sturdy stake/,
    );
    assert.match(
      markdown,
      /\| Variety \| Days to harvest \| Yield \(kg\) \|\n\| --- \| --- \| --- \|\n\| Cherry \| 60 \| 4\.5 \|/,
    );
    assert.ok(!markdown.includes('<!-- page'), 'no page marks unless asked');
    assert.ok(markdown.indexOf('LEFT-COLUMN-END') < markdown.indexOf('RIGHT-COLUMN-START'), 'left column before right');
    assert.ok(!markdown.includes('Balcony Gardening Quarterly'), 'running head dropped');
    assert.ok(!/\n\d\n/.test(markdown), 'page numbers dropped');
    assert.ok(!/south- facing|southfacing/.test(markdown), 'compound kept whole');
  });

  test('page marks on request: a comment naming each page in Markdown, a form feed between pages in text', async () => {
    const outcome = await convertPdf(response(report), { maxPages: 300, pageMarkers: true });
    assert.ok(outcome.ok);
    const { markdown, text } = outcome.page;
    assert.match(markdown, /^<!-- page 1 -->\n\n# Field Guide to Balcony Tomatoes\n\n## Sun and soil/);
    assert.match(markdown, /<!-- page 2 -->\n\n## Two columns of notes/);
    assert.match(markdown, /<!-- page 3 -->\n\n## Pests/);
    assert.ok(!/^#/m.test(text));
    assert.equal(text.split('\f').length, 3);
  });

  test('pages reads only the pages asked for, marked with their numbers in the PDF', async () => {
    const book = await makeBookPdf(12);
    const outcome = await convertPdf(response(book), {
      maxPages: 300,
      pages: [
        { first: 2, last: 3 },
        { first: 7, last: 7 },
        { first: 11, last: 40 },
      ],
      pageMarkers: true,
    });
    assert.ok(outcome.ok);
    const chapters = [...outcome.page.markdown.matchAll(/^## Chapter (\d+)/gm)].map((m) => Number(m[1]));
    assert.deepEqual(chapters, [2, 3, 7, 11, 12]);
    assert.match(outcome.page.markdown, /<!-- page 7 -->\n\n## Chapter 7/);
    assert.equal(outcome.page.pageCount, 12);
    assert.equal(outcome.page.bodyTruncated, false, 'reading the pages asked for is not a truncation');
  });

  test('a part is read with the pages nearest to it as context', () => {
    assert.deepEqual(contextPages(12, [7]), [8, 6, 9, 5]);
    assert.deepEqual(contextPages(12, [1, 2]), [3, 4, 5, 6]);
    assert.deepEqual(contextPages(3, [1, 2, 3]), []);
  });

  test('pages past the end of the PDF only: empty_content naming the page count', async () => {
    const outcome = await convertPdf(response(report), { maxPages: 300, pages: [{ first: 5, last: 9 }] });
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'empty_content');
    assert.match(outcome.failure.detail, /has 3 pages, none of pages 5-9/);
  });

  test('without a title of its own, the first heading names it, written once where it stands', async () => {
    const pdf = await new Promise<Buffer>((resolve) => {
      const doc = new PDFDocument({ size: 'A4', margin: 56 });
      const chunks: Buffer[] = [];
      doc.on('data', (chunk: Buffer) => chunks.push(chunk));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.font('Helvetica').fontSize(11).text('An opening paragraph before any heading, long enough to be body text.');
      doc.moveDown().font('Helvetica-Bold').fontSize(16).text('Watering in summer');
      doc.font('Helvetica').fontSize(11).text('Water deeply in the morning, before the sun is on the pots.');
      doc.end();
    });
    const outcome = await convertPdf(response(pdf), { maxPages: 300 });
    assert.ok(outcome.ok);
    assert.equal(outcome.page.title, 'Watering in summer');
    assert.equal(outcome.page.markdown.match(/Watering in summer/g)?.length, 1, outcome.page.markdown);
    assert.match(outcome.page.markdown, /^An opening paragraph/);
  });

  test('a title that is an address (a browser printing a page without one) is not used', () => {
    for (const title of ['about:blank', 'https://example.com/a', 'untitled']) assert.equal(usableTitle(title), null);
    assert.equal(usableTitle('  Field   Guide '), 'Field Guide');
  });

  test('only PDF_MAX_PAGES pages are read; page_count still tells the whole', async () => {
    const outcome = await convertPdf(response(await makeBookPdf(12)), { maxPages: 5 });
    assert.ok(outcome.ok);
    assert.equal(outcome.page.pageCount, 12);
    assert.equal(outcome.page.bodyTruncated, true);
    assert.match(outcome.page.markdown, /## Chapter 5/);
    assert.ok(!outcome.page.markdown.includes('Chapter 6'));
  });
});

describe('PDFs that cannot be read', () => {
  test('a scanned PDF is 422 no_text_layer with a clear detail', async () => {
    const outcome = await convertPdf(response(await makeScannedPdf()), { maxPages: 300 });
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'no_text_layer');
    assert.match(outcome.failure.detail, /2 pages .* scanned images without a text layer/);
  });

  test('garbage after a PDF header is 422 unreadable_document; a body that is not a PDF is unsupported_content', async () => {
    const garbage = await convertPdf(response(Buffer.from('%PDF-1.7\nthis is not really a pdf')), { maxPages: 300 });
    assert.ok(!garbage.ok);
    assert.equal(garbage.failure.code, 'unreadable_document');
    assert.match(garbage.failure.detail, /the PDF file cannot be read: it is corrupt or truncated/);
    const html = await convertPdf(response(Buffer.from('<html>nope</html>')), { maxPages: 300 });
    assert.ok(!html.ok);
    assert.equal(html.failure.code, 'unsupported_content');
  });

  test('a PDF cut at FETCH_MAX_BYTES says so when it cannot be read', async () => {
    const cut = report.subarray(0, 400);
    const outcome = await convertPdf(response(cut, { bodyTruncated: true, bytes: cut.length }), { maxPages: 300 });
    assert.ok(!outcome.ok);
    assert.match(outcome.failure.detail, /FETCH_MAX_BYTES/);
  });
});
