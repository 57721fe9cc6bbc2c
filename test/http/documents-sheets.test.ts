// Spreadsheets through POST /fetch: XLSX, ODS and CSV (and TSV) as one table per sheet under its name, values not
// formulas, dates as ISO dates, by what their bytes are; files that must not be read (corrupt, truncated, a zip
// bomb: 422 unreadable_document); a million rows trimmed to the cap with a note; long tables read in parts that each
// repeat the header.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GARDEN, makeCsv, makeLongXlsx, makeOds, makeXlsx } from '../helpers/documents/sheets.js';
import { withInflatingEntry } from '../helpers/documents/zip-bombs.js';
import { assertUnreadable, MEDIA, startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const MILLION = 1_000_000;
const MAX_ROWS = 5000;
/** The same two-sheet workbook, as each format writes it. */
const HARVEST_TABLE = [
  '| Crop | Kilos | Picked | Note |',
  '| --- | --- | --- | --- |',
  '| Tomatoes | 12.5 | 2024-07-14 | San Marzano \\| Roma |',
  '| Beans | 4 | 2024-08-02 | two rows<br>north bed |',
  '| Total | 16.5 |  |  |',
].join('\n');
const SEEDS_TABLE = [
  '| Variety | Packets | Sown | Ready |',
  '| --- | --- | --- | --- |',
  '| Sungold | 3 | 2024-04-01 | 2024-05-31 |',
].join('\n');
const LONG_TABLE = [['Day', 'Bed', 'Kilos'], ...Array.from({ length: 300 }, (_, i) => [i + 1, `bed ${i % 7}`, i * 3])];

let site: DocumentSite;
let api: TestApp;
let small: TestApp;
let longXlsxBytes = 0;
before(async () => {
  const xlsx = await makeXlsx(GARDEN);
  const ods = makeOds(GARDEN);
  const harvest = GARDEN.sheets[0]!.rows;
  const longXlsx = await makeLongXlsx(MILLION);
  longXlsxBytes = longXlsx.length;
  site = await startDocumentSite({
    '/garden.xlsx': { type: MEDIA.xlsx, body: xlsx },
    '/garden-xlsx': { type: MEDIA.octet, body: xlsx },
    '/garden-reordered.xlsx': { type: MEDIA.xlsx, body: await makeXlsx(GARDEN, { partsReversed: true }) },
    '/garden.ods': { type: MEDIA.ods, body: ods },
    '/garden-ods': { type: MEDIA.octet, body: ods },
    '/harvest.csv': { type: 'text/csv', body: `\uFEFF${makeCsv(harvest)}` },
    '/harvest-semicolons.csv': { type: 'text/csv; charset=utf-8', body: makeCsv(harvest, ';') },
    '/harvest.tsv': { type: 'text/tab-separated-values', body: makeCsv(harvest, '\t') },
    '/harvest.txt': { type: 'text/plain', body: makeCsv(harvest) },
    '/truncated.xlsx': { type: MEDIA.xlsx, body: xlsx.subarray(0, Math.floor(xlsx.length / 2)) },
    '/garbage.xlsx': { type: MEDIA.xlsx, body: Buffer.from('this is not a zip archive at all, only text') },
    '/bomb.xlsx': { type: MEDIA.xlsx, body: withInflatingEntry(xlsx, 'xl/sharedStrings.xml', 8 * 1024 * 1024) },
    '/million.xlsx': { type: MEDIA.xlsx, body: longXlsx },
    '/million.csv': { type: 'text/csv', body: `n\n${'7\n'.repeat(MILLION)}` },
    '/long.csv': { type: 'text/csv', body: makeCsv(LONG_TABLE) },
  });
  // The million-row XLSX inflates to ~55 MB: within the default DOCUMENT_MAX_UNCOMPRESSED_BYTES (256 MiB).
  api = await buildTestApp({ after }, { FETCH_MAX_BYTES: String(16 * 1024 * 1024), EXTRACT_TIMEOUT_MS: '60000' });
  small = await buildTestApp({ after }, { DOCUMENT_MAX_UNCOMPRESSED_BYTES: String(4 * 1024 * 1024) });
});
after(() => site.close());

const fetchPath = (path: string, extra: Record<string, unknown> = {}, app = api) =>
  app.request('POST', '/fetch', { url: site.url(path), ...extra });

describe('a spreadsheet', () => {
  for (const [path, type] of [
    ['/garden.xlsx', 'xlsx'],
    ['/garden-xlsx', 'xlsx'],
    ['/garden-reordered.xlsx', 'xlsx'],
    ['/garden.ods', 'ods'],
    ['/garden-ods', 'ods'],
  ] as const) {
    test(`${path}: each sheet in the workbook's order under its name as one table, cached values not formulas (dates too), ISO dates`, async () => {
      const res = await fetchPath(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, type);
      assert.equal(res.body.fetch_info.fetcher_used, 'pdf');
      assert.equal(res.body.fetch_info.body_truncated, false);
      assert.equal(res.body.metadata.title, 'Garden Ledger');
      assert.equal(res.body.metadata.page_count, 2);
      assert.equal(
        res.body.markdown,
        `# Garden Ledger\n\n## Harvest 2024\n\n${HARVEST_TABLE}\n\n## Seeds\n\n${SEEDS_TABLE}`,
      );
    });
  }

  for (const path of ['/harvest.csv', '/harvest-semicolons.csv', '/harvest.tsv']) {
    test(`${path}: one table, its delimiter found, quotes and a BOM read, read by the html fetcher`, async () => {
      const res = await fetchPath(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, 'csv');
      assert.equal(res.body.fetch_info.fetcher_used, 'html');
      assert.equal(res.body.markdown, HARVEST_TABLE);
    });
  }

  test('a CSV served as text/plain stays text: commas alone do not make a table', async () => {
    const res = await fetchPath('/harvest.txt');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'text');
    assert.match(res.body.markdown, /^Crop,Kilos,Picked,Note/);
  });
});

describe('an XLSX that cannot be read', () => {
  for (const [path, why, app] of [
    ['/truncated.xlsx', /the XLSX file is not a readable zip archive \(corrupt or truncated\)/, () => api],
    ['/garbage.xlsx', /the XLSX file is not a readable zip archive/, () => api],
    ['/bomb.xlsx', /the XLSX file unpacks to more than 4194304 bytes/, () => small],
  ] as const) {
    test(`${path}: 422 unreadable_document naming XLSX, not billed`, async () => {
      await assertUnreadable(app(), site.url(path), why);
    });
  }
});

describe('a sheet of a million rows', () => {
  for (const [path, type] of [
    ['/million.xlsx', 'xlsx'],
    ['/million.csv', 'csv'],
  ] as const) {
    test(`${path}: the header and ${MAX_ROWS} rows, then a note of the rows left out`, async () => {
      if (type === 'xlsx') assert.ok(longXlsxBytes < 16 * 1024 * 1024, `${longXlsxBytes} bytes fit FETCH_MAX_BYTES`);
      const res = await fetchPath(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, type);
      assert.equal(res.body.fetch_info.body_truncated, true);
      const md: string = res.body.markdown;
      assert.equal(md.match(/^\| \d \|$/gm)?.length, MAX_ROWS);
      assert.ok(md.includes('| n |\n| --- |\n'), md.slice(0, 200));
      assert.ok(
        md.endsWith(
          `_${(MILLION - MAX_ROWS).toLocaleString('en')} more rows were left out: a sheet is read up to 5,000 rows._`,
        ),
        md.slice(-200),
      );
    });
  }
});

describe('a long table read in parts', () => {
  test('max_tokens cuts it between rows; every later part repeats the header; the cursor reads on to the end', async () => {
    const header = '| Day | Bed | Kilos |\n| --- | --- | --- |\n';
    const rows: string[] = [];
    let cursor: string | undefined;
    let parts = 0;
    do {
      const res = await fetchPath('/long.csv', { max_tokens: 300, ...(cursor && { cursor }) });
      assert.equal(res.status, 200, res.text);
      const md: string = res.body.markdown;
      assert.ok(res.body.metadata.token_count <= 300);
      assert.ok(md.startsWith(header), `part ${parts + 1} opens with the header: ${md.slice(0, 80)}`);
      rows.push(...md.split('\n').slice(2));
      cursor = res.body.next_cursor ?? undefined;
      parts++;
    } while (cursor && parts < 50);
    assert.ok(parts > 3, `${parts} parts`);
    assert.equal(cursor, undefined);
    assert.deepEqual(
      rows,
      LONG_TABLE.slice(1).map((row) => `| ${row.join(' | ')} |`),
    );
  });
});
