// Tables for GFM: layout grids are unwrapped into blocks; data tables are rebuilt as one header row and rows of equal
// width (spanned cells laid out on a grid), with cells of one line each, since a GFM cell cannot hold a block or a
// newline. The first row is always the header: the <thead>'s, else the first row, of <th> or, in a table with no header
// at all, of <td> (GFM requires a header row, and an empty one would say nothing and cost tokens).
import { retag, unwrap } from '../dom.js';

/** Elements that start a new line inside a cell; in a GFM cell, that line break is written `<br>`. */
const CELL_BLOCK =
  /^(?:P|DIV|UL|OL|LI|H[1-6]|BLOCKQUOTE|DL|DT|DD|SECTION|ARTICLE|FIGURE|FIGCAPTION|HEADER|FOOTER|ADDRESS|TR)$/;
/** Elements that show a short piece of data table text; anything else (blocks, images, forms) marks a layout cell. */
const PHRASING =
  /^(?:A|ABBR|B|BR|CITE|CODE|DATA|DFN|EM|I|KBD|Q|S|SAMP|SMALL|SPAN|STRONG|SUB|SUP|TIME|VAR|DEL|INS|MARK|U)$/;
/** The widest span honoured; a page's colspan="1000" would otherwise make a row of a thousand empty cells. */
const MAX_SPAN = 50;
/** Positions laid out per table at most: past it (hostile spans), cells span one position. */
const MAX_GRID = 100_000;
/** A cell of an untitled small grid with more text than this is a layout column, not a value. */
const MAX_SHORT_CELL = 100;

/** This table's own rows in reading order (header rows, body rows, footer rows), not those of tables inside it. */
function ownRows(table: Element): Element[] {
  const rows = Array.from(table.querySelectorAll('tr')).filter((row) => row.closest('table') === table);
  const section = (row: Element) => {
    const tag = row.parentElement?.tagName;
    return tag === 'THEAD' ? 0 : tag === 'TFOOT' ? 2 : 1;
  };
  return rows.sort((a, b) => section(a) - section(b));
}

function cellsOf(row: Element): Element[] {
  return Array.from(row.children).filter((cell) => cell.tagName === 'TD' || cell.tagName === 'TH');
}

/** Untitled small grids of short plain values ("Name | Value") are data; a grid of links only is navigation. */
function isGridOfShortText(rows: Element[]): boolean {
  let cellsWithText = 0;
  for (const row of rows) {
    for (const cell of cellsOf(row)) {
      const text = (cell.textContent ?? '').trim();
      if (text.length > MAX_SHORT_CELL) return false;
      for (const el of Array.from(cell.querySelectorAll('*'))) if (!PHRASING.test(el.tagName)) return false;
      if (text === '') continue;
      const linked = Array.from(cell.querySelectorAll('a')).reduce(
        (n, link) => n + (link.textContent ?? '').trim().length,
        0,
      );
      if (linked < text.length) cellsWithText++;
    }
  }
  return cellsWithText >= rows.length;
}

/**
 * Readability's test (role, caption, header cells, size), so that layout grids do not become GFM tables; small grids
 * of short values, which that test calls layout, are data too.
 */
function isDataTable(table: Element, rows: Element[]): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return false;
  if (table.getAttribute('summary') || table.querySelector('caption, thead, th, col, colgroup, tfoot')) return true;
  const columns = Math.max(0, ...rows.map((row) => cellsOf(row).length));
  if (rows.length <= 1 || columns <= 1) return false;
  if (rows.length >= 10 || columns > 4 || rows.length * columns > 10) return true;
  return isGridOfShortText(rows);
}

function unwrapLayoutTable(table: Element): void {
  for (const cell of Array.from(table.querySelectorAll('td, th'))) {
    if (cell.closest('table') === table) retag(cell, 'div');
  }
  for (const part of Array.from(table.querySelectorAll('tr, tbody, thead, tfoot, caption'))) {
    if (part.closest('table') === table) unwrap(part);
  }
  retag(table, 'div');
}

/** Lines of a cell's code block, each as inline code: a code span cannot hold a line break. */
function inlineCodeLines(pre: Element): void {
  const doc = pre.ownerDocument;
  const lines = (pre.textContent ?? '').split('\n').filter((line) => line.trim() !== '');
  const parts: Node[] = [];
  for (const line of lines) {
    if (parts.length > 0) parts.push(doc.createElement('br'));
    const code = doc.createElement('code');
    code.textContent = line;
    parts.push(code);
  }
  pre.replaceWith(...parts);
}

/** Whether a node shows nothing: whitespace, or an element without text or image. */
function isBlank(node: ChildNode): boolean {
  if (node.nodeType === 3) return (node.nodeValue ?? '').trim() === '';
  const el = node as Element;
  return el.tagName !== 'IMG' && !el.querySelector('img') && (el.textContent ?? '').trim() === '';
}

function isBreak(node: ChildNode): boolean {
  return node.nodeType === 1 && (node as Element).tagName === 'BR';
}

/** Drops line breaks at the start and end of a cell and runs of them in between, so that no line is empty. */
function tidyBreaks(cell: Element): void {
  let previousWasBreak = true;
  for (const node of Array.from(cell.childNodes)) {
    if (isBreak(node)) {
      if (previousWasBreak) node.remove();
      previousWasBreak = true;
    } else if (!isBlank(node)) previousWasBreak = false;
  }
  for (
    let last = cell.lastChild;
    last && (isBreak(last) || (last.nodeType === 3 && isBlank(last)));
    last = cell.lastChild
  )
    last.remove();
}

/** GFM cells hold one line: blocks inside a data cell become lines separated by `<br>`, list items get a bullet. */
function flattenCell(cell: Element): void {
  const doc = cell.ownerDocument;
  for (const pre of Array.from(cell.querySelectorAll('pre'))) inlineCodeLines(pre);
  // Each block is replaced by its children between two line breaks; tidyBreaks then removes the extra ones.
  for (const block of Array.from(cell.querySelectorAll('*'))) {
    if (!CELL_BLOCK.test(block.tagName)) continue;
    if (block.tagName === 'LI') block.prepend(doc.createTextNode('• '));
    block.before(doc.createElement('br'));
    block.after(doc.createElement('br'));
    unwrap(block);
  }
  tidyBreaks(cell);
}

interface Slot {
  cell: Element;
  /** The cell's own (top-left) position, where its content goes; the other positions it spans stay empty. */
  origin: boolean;
}

/** Lays the cells out on a grid, each position knowing the cell that covers it. */
function layOutGrid(rows: Element[]): Slot[][] {
  const grid: Slot[][] = rows.map(() => []);
  let budget = MAX_GRID;
  rows.forEach((row, r) => {
    const line = grid[r]!;
    let column = 0;
    for (const cell of cellsOf(row)) {
      while (line[column] !== undefined) column++;
      let colspan = Math.min(MAX_SPAN, Math.max(1, Number.parseInt(cell.getAttribute('colspan') ?? '', 10) || 1));
      const declaredRows = Number.parseInt(cell.getAttribute('rowspan') ?? '', 10);
      // rowspan="0" spans to the end of the table.
      let rowspan = Math.min(rows.length - r, declaredRows === 0 ? rows.length : Math.max(1, declaredRows || 1));
      budget -= colspan * rowspan;
      if (budget < 0) colspan = rowspan = 1;
      for (let dr = 0; dr < rowspan; dr++) {
        for (let dc = 0; dc < colspan; dc++) grid[r + dr]![column + dc] = { cell, origin: dr === 0 && dc === 0 };
      }
      column += colspan;
    }
  });
  return grid;
}

/** A cell's words, a line break counting as a space. */
function textOf(el: Element): string {
  const words = (node: Node): string =>
    node.nodeType === 3
      ? (node.nodeValue ?? '')
      : node.nodeName === 'BR'
        ? ' '
        : Array.from(node.childNodes).map(words).join('');
  return words(el).replace(/\s+/g, ' ').trim();
}

function rowText(row: Element): string {
  return cellsOf(row).map(textOf).join(' | ');
}

/** A row of one cell across the whole table: a title ("Table 2: Prices") above the header, not a header itself. */
function isTitleRow(line: Slot[]): boolean {
  return line.length > 1 && line.every((slot) => slot.cell === line[0]!.cell);
}

/**
 * One header row from several (`<th rowspan=2>Region</th><th colspan=2>Sales</th>` over `2023 | 2024`): each column is
 * named by the words of every header cell above it, "Region | Sales 2023 | Sales 2024", as a reader would say it.
 */
function mergeHeaderRows(lines: Slot[][], width: number, doc: Document): Element {
  const tr = doc.createElement('tr');
  for (let c = 0; c < width; c++) {
    const names: string[] = [];
    let previous: Element | null = null;
    for (const line of lines) {
      const cell = line[c]?.cell ?? null;
      if (cell && cell !== previous && textOf(cell)) names.push(textOf(cell));
      previous = cell;
    }
    const th = doc.createElement('th');
    th.textContent = names.join(' ');
    tr.append(th);
  }
  return tr;
}

/**
 * Rebuilds a data table as <thead> with one row and <tbody> with the rest, every row as wide as the widest. A spanned
 * cell's content is in its first position and the others are empty, as the page shows it: repeating it would put
 * words in the table that the page has once.
 */
function rebuildDataTable(table: Element, allRows: Element[]): void {
  const doc = table.ownerDocument;
  // Long tables repeat their header in the footer, which is shown at the bottom: once is enough in Markdown.
  const headers = new Set(allRows.filter((row, i) => i === 0 || row.parentElement?.tagName === 'THEAD').map(rowText));
  const rows = allRows.filter((row) => row.parentElement?.tagName !== 'TFOOT' || !headers.has(rowText(row)));
  for (const cell of rows.flatMap(cellsOf)) flattenCell(cell);
  const grid = layOutGrid(rows);
  const width = Math.max(0, ...grid.map((line) => line.length));
  if (width === 0) {
    table.remove();
    return;
  }
  // Title rows become paragraphs before the table, as long as a header row and a body row remain.
  const titles: Element[] = [];
  while (grid.length > 2 && grid[0]!.length === width && isTitleRow(grid[0]!)) {
    const title = doc.createElement('p');
    title.append(...Array.from(grid[0]![0]!.cell.childNodes));
    titles.push(title);
    grid.shift();
    rows.shift();
  }
  const makeRow = (line: Slot[], tag: 'th' | 'td') => {
    const tr = doc.createElement('tr');
    for (let c = 0; c < width; c++) {
      const cell = doc.createElement(tag);
      const slot = line[c];
      if (slot?.origin) cell.append(...Array.from(slot.cell.childNodes));
      tr.append(cell);
    }
    return tr;
  };
  // Several header rows make one, when rows are left for the body.
  const theadRows = rows.filter((row) => row.parentElement?.tagName === 'THEAD').length;
  const headerRows = theadRows > 1 && theadRows < rows.length ? theadRows : 1;
  const thead = doc.createElement('thead');
  thead.append(headerRows > 1 ? mergeHeaderRows(grid.slice(0, headerRows), width, doc) : makeRow(grid[0]!, 'th'));
  const tbody = doc.createElement('tbody');
  for (const line of grid.slice(headerRows)) tbody.append(makeRow(line, 'td'));
  const caption = Array.from(table.children).find((child) => child.tagName === 'CAPTION');
  table.replaceChildren(...(caption ? [caption] : []), thead, tbody);
  table.before(...titles);
}

export function rewriteTables(root: Element): void {
  // Innermost first, so a layout table's nested data tables are judged on their own.
  for (const table of Array.from(root.querySelectorAll('table')).reverse()) {
    const rows = ownRows(table);
    if (!table.querySelector('table') && isDataTable(table, rows)) rebuildDataTable(table, rows);
    else unwrapLayoutTable(table);
  }
  // Readability renames the layout table it picks to a <div>, leaving its rows and cells without a table.
  for (const part of Array.from(root.querySelectorAll('tr, td, th, tbody, thead, tfoot'))) {
    if (part.closest('table')) continue;
    if (part.tagName === 'TD' || part.tagName === 'TH') retag(part, 'div');
    else unwrap(part);
  }
}
