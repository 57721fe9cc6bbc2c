// PDFs by their bytes through POST /fetch: a PDF served as text/plain is read as a PDF, an HTML page served as a PDF as
// the HTML it is; a password-protected, a truncated and a corrupt PDF are 422 unreadable_document naming the format,
// never billed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import PDFDocument from 'pdfkit';
import { makeReportPdf } from '../helpers/pdf-fixtures.js';
import { assertUnreadable, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

function encryptedPdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.text('Only for those who know the password.');
    doc.end();
  });
}

let site: DocumentSite;
let api: TestApp;
before(async () => {
  const report = await makeReportPdf();
  site = await startDocumentSite({
    '/as-text': { type: 'text/plain', body: report },
    '/page.pdf': {
      type: 'application/pdf',
      body: '<!doctype html><html><body><h1>Not here</h1><p>The report moved.</p></body></html>',
    },
    '/locked.pdf': { type: 'application/pdf', body: await encryptedPdf() },
    '/cut.pdf': { type: 'application/pdf', body: report.subarray(0, 600) },
    '/broken.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.7\nthis is not really a pdf at all') },
  });
  api = await buildTestApp({ after });
});
after(() => site.close());

describe('a PDF by its bytes', () => {
  test('served as text/plain, it is read as the PDF it is', async () => {
    const res = await api.post('/fetch', { url: site.url('/as-text') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'pdf');
    assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
    assert.equal(res.body.metadata.title, 'Field Guide to Balcony Tomatoes');
  });

  test('an HTML page served as a PDF is read as HTML', async () => {
    const res = await api.post('/fetch', { url: site.url('/page.pdf') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'html');
    assert.match(res.body.markdown, /The report moved\./);
  });
});

describe('a PDF that cannot be read', () => {
  for (const [path, why] of [
    ['/locked.pdf', /the PDF file is password-protected \(encrypted\)/],
    ['/cut.pdf', /the PDF file cannot be read: it is corrupt or truncated/],
    ['/broken.pdf', /the PDF file cannot be read: it is corrupt or truncated/],
  ] as const) {
    test(`${path}: 422 unreadable_document, not billed`, async () => {
      await assertUnreadable(api, site.url(path), why);
    });
  }
});
