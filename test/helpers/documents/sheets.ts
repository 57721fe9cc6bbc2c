// Spreadsheets made at test time from content known in advance (sheets → rows), so tests and a benchmark can check
// every cell that comes back: XLSX with exceljs's writer (MIT), ODS built by hand (content.xml zipped with fflate,
// its `mimetype` stored first as OpenDocument requires), CSV as strings.
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { strToU8, unzipSync, zipSync } from 'fflate';

/** A cell: text, a number, a date (written as a date), or a formula with the result a spreadsheet cached for it. */
export type SheetCell = string | number | Date | { formula: string; result: number | Date } | null;

export interface SheetContent {
  name: string;
  rows: SheetCell[][];
}

export interface WorkbookContent {
  title?: string;
  sheets: SheetContent[];
}

/** A garden's workbook: two sheets, dates, a formula, a pipe and a line break in cells, empty trailing cells. */
export const GARDEN: WorkbookContent = {
  title: 'Garden Ledger',
  sheets: [
    {
      name: 'Harvest 2024',
      rows: [
        ['Crop', 'Kilos', 'Picked', 'Note'],
        ['Tomatoes', 12.5, new Date(Date.UTC(2024, 6, 14)), 'San Marzano | Roma'],
        ['Beans', 4, new Date(Date.UTC(2024, 7, 2)), 'two rows\nnorth bed'],
        ['Total', { formula: 'SUM(B2:B3)', result: 16.5 }, null, null],
        [null, null, null, null],
      ],
    },
    {
      name: 'Seeds',
      rows: [
        ['Variety', 'Packets', 'Sown', 'Ready'],
        ['Sungold', 3, new Date(Date.UTC(2024, 3, 1)), { formula: 'C2+60', result: new Date(Date.UTC(2024, 4, 31)) }],
      ],
    },
  ],
};

/**
 * `partsReversed`: the sheets' parts numbered and stored last sheet first (sheet1.xml is the last sheet), the
 * workbook's own list still in content order: a reader must follow the list, not the parts.
 */
export async function makeXlsx(content: WorkbookContent, options: { partsReversed?: boolean } = {}): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  if (content.title) workbook.title = content.title;
  const sheets = content.sheets.map((sheet, order) => ({ sheet, order }));
  for (const { sheet, order } of options.partsReversed ? sheets.reverse() : sheets) {
    const worksheet = workbook.addWorksheet(sheet.name);
    // The workbook's list is sorted by orderNo, which exceljs's types leave out.
    (worksheet as ExcelJS.Worksheet & { orderNo: number }).orderNo = order;
    for (const row of sheet.rows) {
      const added = worksheet.addRow(row);
      // A formula's date result is a serial number shown as a date, as Excel writes it.
      row.forEach((cell, i) => {
        if (cell && typeof cell === 'object' && 'formula' in cell && cell.result instanceof Date)
          added.getCell(i + 1).numFmt = 'yyyy-mm-dd';
      });
    }
  }
  const written = Buffer.from(await workbook.xlsx.writeBuffer());
  if (!options.partsReversed) return written;
  const entries = unzipSync(written);
  const byName = Object.keys(entries).sort();
  return Buffer.from(zipSync(Object.fromEntries(byName.map((name) => [name, entries[name]!]))));
}

/** A one-column sheet of `rows` short numbers under a header, written by exceljs's streaming writer. */
export async function makeLongXlsx(rows: number): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false });
  const worksheet = workbook.addWorksheet('Readings');
  worksheet.addRow(['n']).commit();
  for (let i = 0; i < rows; i++) worksheet.addRow([i % 10]).commit();
  worksheet.commit();
  await workbook.commit();
  return Buffer.concat(chunks);
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function odsCell(cell: SheetCell): string {
  if (cell === null) return '<table:table-cell/>';
  if (cell instanceof Date) {
    const iso = cell.toISOString().slice(0, 10);
    return `<table:table-cell office:value-type="date" office:date-value="${iso}"><text:p>${iso}</text:p></table:table-cell>`;
  }
  if (typeof cell === 'number')
    return `<table:table-cell office:value-type="float" office:value="${cell}"><text:p>${cell}</text:p></table:table-cell>`;
  if (typeof cell === 'object') {
    const formula = `table:formula="of:=${escapeXml(cell.formula)}"`;
    if (cell.result instanceof Date) {
      const iso = cell.result.toISOString().slice(0, 10);
      return `<table:table-cell ${formula} office:value-type="date" office:date-value="${iso}"><text:p>${iso}</text:p></table:table-cell>`;
    }
    return `<table:table-cell ${formula} office:value-type="float" office:value="${cell.result}"><text:p>${cell.result}</text:p></table:table-cell>`;
  }
  const lines = cell.split('\n').map((line) => `<text:p>${escapeXml(line)}</text:p>`);
  return `<table:table-cell office:value-type="string">${lines.join('')}</table:table-cell>`;
}

/**
 * An ODS as LibreOffice writes one: each sheet ends with a repeated empty row of `emptyTail` rows (LibreOffice
 * writes 1,048,576 minus the rows used) and each row with a run of 1,020 repeated empty cells.
 */
export function makeOds(content: WorkbookContent, emptyTail = 1_048_000): Buffer {
  const tables = content.sheets.map((sheet) => {
    const rows = sheet.rows.map(
      (row) =>
        `<table:table-row>${row.map(odsCell).join('')}<table:table-cell table:number-columns-repeated="1020"/></table:table-row>`,
    );
    const tail = `<table:table-row table:number-rows-repeated="${emptyTail}"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`;
    return `<table:table table:name="${escapeXml(sheet.name)}">${rows.join('')}${tail}</table:table>`;
  });
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content ' +
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">' +
    `<office:body><office:spreadsheet>${tables.join('')}</office:spreadsheet></office:body></office:document-content>`;
  const meta = content.title
    ? '<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      `xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>${escapeXml(content.title)}</dc:title></office:meta></office:document-meta>`
    : null;
  return Buffer.from(
    zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }],
      'content.xml': strToU8(xml),
      ...(meta && { 'meta.xml': strToU8(meta) }),
      'META-INF/manifest.xml': strToU8(
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
          '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>' +
          '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
      ),
    }),
  );
}

/** Rows as CSV: fields with the delimiter, a quote or a line break quoted; dates as ISO dates; formulas as results. */
export function makeCsv(rows: SheetCell[][], delimiter = ','): string {
  const field = (cell: SheetCell): string => {
    const text =
      cell === null
        ? ''
        : cell instanceof Date
          ? cell.toISOString().slice(0, 10)
          : typeof cell === 'object'
            ? field(cell.result)
            : String(cell);
    return /["\n\r]/.test(text) || text.includes(delimiter) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((row) => row.map(field).join(delimiter)).join('\r\n') + '\r\n';
}
