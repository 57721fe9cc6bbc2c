// Headings and tables of a PDF's Markdown against those of the HTML that was printed: which printed headings come
// back as Markdown headings with the same words, which printed tables come back as GFM tables, and their cells.

export interface StructureCount {
  headingsPrinted: number;
  headingsFound: number;
  /** Printed headings with a Markdown heading of the same words. */
  headingsRecalled: number;
  /** Markdown headings whose words are a printed heading's. */
  headingsMatched: number;
  tablesPrinted: number;
  /** Printed tables with a GFM table holding at least half of their cells. */
  tablesMatched: number;
  cellsPrinted: number;
  /** Printed cells that are a cell of a GFM table of the Markdown. */
  cellsFound: number;
}

const words = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');

const isRule = (line: string) => /^\|[\s:|-]+\|$/.test(line);

/** The GFM tables of Markdown, as sets of their cells' words (the separator row left out). */
function markdownTables(markdown: string): Set<string>[] {
  const tables: Set<string>[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!(lines[i]!.startsWith('|') && isRule(lines[i + 1] ?? ''))) continue;
    const cells = new Set<string>();
    for (; i < lines.length && lines[i]!.startsWith('|'); i++)
      if (!isRule(lines[i]!)) for (const cell of lines[i]!.split(/(?<!\\)\|/)) if (words(cell)) cells.add(words(cell));
    tables.push(cells);
  }
  return tables;
}

export function countStructure(
  markdown: string,
  printed: { headings: string[]; tables: string[][][] },
): StructureCount {
  const found = [...markdown.matchAll(/^#{1,6} (.*)$/gm)].map((m) => words(m[1]!));
  const printedHeadings = new Set(printed.headings.map(words));
  const tables = markdownTables(markdown);
  const allCells = new Set(tables.flatMap((t) => [...t]));
  let tablesMatched = 0;
  let cellsPrinted = 0;
  let cellsFound = 0;
  for (const table of printed.tables) {
    const cells = table.flat().map(words).filter(Boolean);
    cellsPrinted += cells.length;
    cellsFound += cells.filter((c) => allCells.has(c)).length;
    if (tables.some((t) => cells.filter((c) => t.has(c)).length >= cells.length / 2)) tablesMatched++;
  }
  return {
    headingsPrinted: printed.headings.length,
    headingsFound: found.length,
    headingsRecalled: printed.headings.filter((h) => found.includes(words(h))).length,
    headingsMatched: found.filter((h) => printedHeadings.has(h)).length,
    tablesPrinted: printed.tables.length,
    tablesMatched,
    cellsPrinted,
    cellsFound,
  };
}

export function addStructure(a: StructureCount, b: StructureCount): StructureCount {
  const sum = { ...a };
  for (const key of Object.keys(b) as (keyof StructureCount)[]) sum[key] += b[key];
  return sum;
}

export const NO_STRUCTURE: StructureCount = {
  headingsPrinted: 0,
  headingsFound: 0,
  headingsRecalled: 0,
  headingsMatched: 0,
  tablesPrinted: 0,
  tablesMatched: 0,
  cellsPrinted: 0,
  cellsFound: 0,
};
