// CSV and TSV → one Markdown table: csv-parse (MIT, sync) with the delimiter guessed from the first lines (comma,
// semicolon or tab), quotes, a leading BOM dropped; parsing stops after the header and the row cap, and the records
// left are counted.
import { parse } from 'csv-parse/sync';
import { collectRows, sheetMarkdown } from './tables.js';
import { UnreadableDocument, type DocumentLimits, type DocumentText } from './types.js';

const DELIMITERS = [',', ';', '\t'] as const;
/** Lines the delimiter is guessed from. */
const SAMPLE_LINES = 10;

/** The delimiter found most often outside quotes in the first lines, the same number of times on each; comma else. */
export function guessDelimiter(text: string): string {
  const lines = text.split('\n', SAMPLE_LINES + 1).slice(0, SAMPLE_LINES);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  let best: string = ',';
  let bestScore = 0;
  for (const delimiter of DELIMITERS) {
    const counts = lines.map((line) => line.replace(/"[^"]*"/g, '').split(delimiter).length - 1);
    const steady = counts.every((count) => count === counts[0]);
    const score = (counts[0] ?? 0) * (steady ? 2 : 1);
    if (score > bestScore) [best, bestScore] = [delimiter, score];
  }
  return best;
}

/** Records in `buffer` from `start` on, blank lines aside: line feeds outside quotes, as the parser would end them. */
function recordsFrom(buffer: Buffer, start: number): number {
  let records = 0;
  let quoted = false;
  let content = false;
  for (let at = start; at < buffer.length; at++) {
    const byte = buffer[at]!;
    if (byte === 0x22) quoted = !quoted;
    if (byte === 0x0a && !quoted) {
      if (content) records++;
      content = false;
    } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) content = true;
  }
  return content ? records + 1 : records;
}

interface ParsedRow {
  record: string[];
  info: { bytes: number };
}

export function readCsv(text: string, limits: DocumentLimits): DocumentText {
  const clean = text.replace(/^\uFEFF/, '');
  const body = Buffer.from(clean);
  let records: ParsedRow[];
  try {
    records = parse(body, {
      delimiter: guessDelimiter(clean.slice(0, 64 * 1024)),
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // The header, the cap and one more row, which says the file goes on; the rest is only counted.
      to: limits.maxRows + 2,
    }) as unknown as ParsedRow[];
  } catch (error) {
    throw new UnreadableDocument('csv', `cannot be parsed (${(error as Error).message})`);
  }
  const rows = collectRows(limits.maxRows);
  let kept = -1;
  let read = 0;
  for (const [position, { record, info }] of records.entries()) {
    if (!rows.add(position, record)) break;
    [kept, read] = [position, info.bytes];
  }
  const table = rows.table(null, kept + recordsFrom(body, read));
  return { title: null, markdown: sheetMarkdown(table), pageCount: 1, truncated: table.more !== undefined };
}
