// XLSX → one Markdown table per sheet, in the workbook's order: exceljs's (MIT) streaming reader over the entries
// openZip allowed, cell values as they were last calculated (never formulas), dates as ISO dates. A sheet stops
// streaming at the row cap; how many rows it left out comes from the number of its last row.
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import type { Unzipped } from 'fflate';
import { readCoreProperties } from './office-properties.js';
import { collectRows, workbookMarkdown, type SheetTable } from './tables.js';
import { UnreadableDocument, type DocumentLimits, type DocumentText } from './types.js';
import { entryText, openZip, repack } from './zip.js';

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';
/**
 * What exceljs reads, in the order its streaming reader needs them: before a sheet, or it spools sheets to disk. The
 * sheets follow in the workbook's order, which is the order the reader hands them over.
 */
const HEAD_PARTS = [WORKBOOK_RELS, WORKBOOK, 'xl/styles.xml', SHARED_STRINGS];
const SHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;
const wanted = (name: string) => HEAD_PARTS.includes(name) || SHEET_PART.test(name) || name === 'docProps/core.xml';

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => name === 'sheet' || name === 'Relationship',
});

interface SheetPart {
  name: string;
  path: string;
}

/** The sheets in the workbook's order, each with its part (workbook.xml names them, its rels point at the parts). */
function sheetParts(entries: Unzipped): SheetPart[] {
  type Workbook = { workbook?: { sheets?: { sheet?: { name: string; id: string }[] } } };
  type Rels = { Relationships?: { Relationship?: { Id: string; Target: string }[] } };
  const workbook = parser.parse(entryText(entries, WORKBOOK) ?? '') as Workbook;
  const rels = parser.parse(entryText(entries, WORKBOOK_RELS) ?? '') as Rels;
  const targets = new Map(rels.Relationships?.Relationship?.map((rel) => [rel.Id, rel.Target]));
  return (workbook.workbook?.sheets?.sheet ?? []).map((sheet) => {
    const target = targets.get(sheet.id) ?? '';
    return { name: String(sheet.name), path: target.startsWith('/') ? target.slice(1) : `xl/${target}` };
  });
}

/** Where a sheet's last row is, 0-based, from the last <row r="…"> in its XML's tail; null when it cannot tell. */
function lastRowPosition(entries: Unzipped, path: string): number | null {
  const xml = entries[path];
  if (!xml) return null;
  const tail = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength)
    .subarray(-64 * 1024)
    .toString('latin1');
  const rows = [...tail.matchAll(/<(?:\w+:)?row\b[^>]*?\br="(\d+)"/g)];
  const last = rows.at(-1)?.[1];
  return last === undefined ? null : Number(last) - 1;
}

/** The entries exceljs reads, head parts first; an empty shared-strings table where the file has none. */
function orderedForStreaming(entries: Unzipped, sheets: SheetPart[]): Unzipped {
  const ordered: Unzipped = { [SHARED_STRINGS]: Buffer.from('<sst/>') };
  for (const name of HEAD_PARTS) if (entries[name]) ordered[name] = entries[name];
  for (const { path } of sheets) if (entries[path]) ordered[path] = entries[path];
  return ordered;
}

/**
 * The repacked file as a stream of small chunks: exceljs parses each chunk it is given whole before it yields a row,
 * so one chunk of the whole file would parse every row of a million-row sheet before the cap could stop it.
 */
function inChunks(bytes: Uint8Array, size = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += size) {
        yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(size, bytes.length - at));
      }
    })(),
  );
}

const isoDate = (date: Date) =>
  date
    .toISOString()
    .replace(/T00:00:00\.000Z$/, '')
    .replace(/(:\d\d)\.000Z$/, '$1');

/** A number format that shows a date or time, what is quoted or bracketed aside (exceljs's own test). */
const isDateFormat = (format: string | undefined) =>
  !!format && /[ymdhMsb]/.test(format.replace(/\[[^\]]*]|"[^"]*"/g, ''));

/** Serial days as a date: from 1899-12-30, or from 1904-01-01 in a workbook of the 1904 system. */
const fromSerial = (days: number, date1904: boolean) =>
  new Date(Math.round((days - (date1904 ? 24107 : 25569)) * 86_400_000));

/**
 * A cell's value as text: a formula's cached result (a date when the cell shows one: the streaming reader converts
 * plain cells only), rich text by its text, errors as shown. A hyperlink is its text: a sheet lists its links after
 * its rows, where a streaming read has already written them.
 */
function cellText(cell: ExcelJS.Cell, date1904: boolean): string {
  const value = cell.value;
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return isoDate(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('error' in value) return value.error;
  if ('result' in value) {
    const result = value.result;
    if (typeof result === 'number' && isDateFormat(cell.numFmt)) return isoDate(fromSerial(result, date1904));
    return result === undefined || result === null || typeof result === 'object' ? '' : String(result);
  }
  return '';
}

/** A row's cells as text, in column order. */
function rowText(row: ExcelJS.Row, date1904: boolean): string[] {
  const cells: string[] = [];
  row.eachCell((cell, column) => {
    while (cells.length < column - 1) cells.push('');
    cells.push(cellText(cell, date1904));
  });
  return cells;
}

async function readSheets(entries: Unzipped, sheets: SheetPart[], maxRows: number): Promise<SheetTable[]> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(inChunks(repack(orderedForStreaming(entries, sheets))), {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  const tables: SheetTable[] = [];
  for await (const worksheet of reader) {
    const date1904 = !!(reader as unknown as { properties?: { date1904?: boolean } }).properties?.date1904;
    const name = (worksheet as unknown as { name: string }).name;
    const rows = collectRows(maxRows);
    let more = false;
    for await (const row of worksheet) {
      // Past the cap: the rest of the sheet is drained by the reader, never parsed.
      if (!rows.add(row.number - 1, rowText(row, date1904))) {
        more = true;
        break;
      }
    }
    const part = sheets.find((sheet) => sheet.name === name);
    tables.push(rows.table(name, more && part ? lastRowPosition(entries, part.path) : null));
  }
  return tables;
}

export async function readXlsx(body: Buffer, limits: DocumentLimits): Promise<DocumentText> {
  const entries = openZip(body, 'xlsx', limits, wanted);
  const sheets = sheetParts(entries);
  let tables: SheetTable[];
  try {
    tables = await readSheets(entries, sheets, limits.maxRows);
  } catch (error) {
    throw new UnreadableDocument('xlsx', `cannot be read as a workbook (${(error as Error).message})`);
  }
  const { markdown, truncated } = workbookMarkdown(tables);
  return {
    ...readCoreProperties(entryText(entries, 'docProps/core.xml')),
    markdown,
    pageCount: tables.length,
    truncated,
  };
}
