// Spreadsheet sheets and CSV files as Markdown, shared by the XLSX, ODS and CSV readers: rows collected up to the row
// cap (leading and trailing empty rows and trailing empty columns dropped), one GFM table per sheet under its name, its
// first row the header, and a note saying what the cap left out.

/** Rows a sheet hands over by position: the first row with a cell is the header; `maxRows` rows are kept after it. */
export interface SheetRows {
  /**
   * The row at `position` (0-based in the sheet, rising), repeated `times`. False once a row with a cell lies past
   * the cap: stop reading. Empty rows are only counted, so a repeat of a million empty rows costs nothing.
   */
  add(position: number, cells: readonly string[], times?: number): boolean;
  /**
   * The sheet's table. `lastPosition`: where the sheet's last row is, when the file says, so a note can count the
   * rows left out past the cap; null: the sheet goes on, how far is not known.
   */
  table(name: string | null, lastPosition: number | null): SheetTable;
}

export interface SheetTable {
  /** The heading above the table; null for a file of one table (CSV). */
  name: string | null;
  /** The header first; rows with no cells in between are empty arrays. */
  rows: readonly (readonly string[])[];
  maxRows: number;
  /** Rows left out past the cap: undefined when none were, null when the count is not known. */
  more?: number | null;
}

const isEmpty = (cells: readonly string[]) => cells.every((cell) => cell.trim() === '');

/** Cells up to the last one with text. */
function filledWidth(cells: readonly string[]): number {
  let width = cells.length;
  while (width > 0 && cells[width - 1]!.trim() === '') width--;
  return width;
}

export function collectRows(maxRows: number): SheetRows {
  const rows: (readonly string[])[] = [];
  let first: number | null = null;
  let cut = false;
  return {
    add(position, cells, times = 1) {
      if (isEmpty(cells)) return true;
      first ??= position;
      for (let index = position - first; index < position - first + times; index++) {
        if (index > maxRows) {
          cut = true;
          return false;
        }
        rows[index] = cells;
      }
      return true;
    },
    table(name, lastPosition) {
      const more = lastPosition === null || first === null ? 0 : lastPosition - first - maxRows;
      return {
        name,
        rows: Array.from(rows, (row) => row ?? []),
        maxRows,
        ...(cut && { more: more > 0 ? more : null }),
      };
    },
  };
}

/** A cell's text inside a table row: pipes escaped, line breaks as <br>, which GFM cells allow. */
export function escapeCell(text: string): string {
  return text
    .trim()
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, '<br>');
}

function tableRow(cells: readonly string[], width: number): string {
  const padded = Array.from({ length: width }, (_, i) => escapeCell(cells[i] ?? ''));
  return `| ${padded.join(' | ')} |`;
}

function leftOutNote(table: SheetTable): string {
  const cap = table.maxRows.toLocaleString('en');
  return table.more === null
    ? `_The sheet goes on past ${cap} rows; the rest were left out._`
    : `_${table.more!.toLocaleString('en')} more ${table.more === 1 ? 'row was' : 'rows were'} left out: a sheet is read up to ${cap} rows._`;
}

/** One sheet: `## name`, its table (when it has a cell) and the note of rows left out. */
export function sheetMarkdown(table: SheetTable): string {
  const parts = table.name === null ? [] : [`## ${table.name.replace(/\s+/g, ' ').trim() || 'Sheet'}`];
  const width = table.rows.reduce((widest, row) => Math.max(widest, filledWidth(row)), 0);
  if (width > 0) {
    const [header = [], ...body] = table.rows;
    const separator = `|${' --- |'.repeat(width)}`;
    parts.push([tableRow(header, width), separator, ...body.map((row) => tableRow(row, width))].join('\n'));
  }
  if (table.more !== undefined) parts.push(leftOutNote(table));
  return parts.join('\n\n');
}

/** A workbook's sheets in order; `truncated` when the cap left rows out of any of them. */
export function workbookMarkdown(tables: readonly SheetTable[]): { markdown: string; truncated: boolean } {
  return {
    markdown: tables.map(sheetMarkdown).join('\n\n'),
    truncated: tables.some((table) => table.more !== undefined),
  };
}
