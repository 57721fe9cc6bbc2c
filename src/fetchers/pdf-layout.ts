// Positioned text runs of PDF pages → Markdown: lines, paragraphs re-joined across line breaks and hyphenation,
// headings by font size, simple tables by column alignment, lists by their bullets, running heads and page numbers
// dropped, page breaks marked. Pure functions over numbers, so they are tested without any PDF.

/**
 * One run of text as pdf.js gives it: baseline origin (x, y grow right and up), advance width, font size; `font` names
 * its font within the document (unknown for a monospaced font, whose short lines are code, not headings).
 */
export interface TextRun {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
  eol: boolean;
  font?: string;
}

/**
 * Font size at least this many times the body size makes a heading: 10 pt body → 11.5 pt; LaTeX's smallest section size
 * is 1.2×.
 */
export const HEADING_MIN_RATIO = 1.15;
/** Headings are short: a "line" of larger text longer than this is a pull quote or a large-print paragraph. */
const HEADING_MAX_CHARS = 200;
/** Horizontal gap, in ems, that separates table cells; justified prose stretches spaces to about 1 em at most. */
export const CELL_GAP_EM = 2;
/** Gap, in ems, above which two runs on one line get a space between them (pdf.js omits many spaces). */
const SPACE_GAP_EM = 0.15;
/** A vertical step this many times the usual line spacing starts a new paragraph (one blank line is ~2×). */
export const PARAGRAPH_GAP_RATIO = 1.3;
/**
 * A line ending a sentence and this much shorter than its column ends a paragraph (for text set without gaps or
 * indents). Ragged-right lines differ by up to a long word, ~20% of a column, so less than 0.3 splits paragraphs.
 */
const SHORT_LINE_SHARE = 0.3;
/** Cells longer than this are prose side by side (two columns), not a table. */
const TABLE_MAX_CELL_CHARS = 60;
/** A running head or foot repeats on at least this share of pages (on both of two). */
const RUNNING_SHARE = 0.6;

interface Cell {
  x: number;
  xEnd: number;
  text: string;
}

interface Line {
  cells: Cell[];
  y: number;
  size: number;
  /** The font of every run of the line; null when they differ or one is unknown. */
  font: string | null;
}

type Block =
  | { kind: 'heading'; size: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'item'; marker: string; text: string }
  | { kind: 'table'; rows: string[][] };

const lineText = (line: Line) => line.cells.map((c) => c.text).join(' ');
const lineX = (line: Line) => line.cells[0]!.x;
const lineXEnd = (line: Line) => line.cells[line.cells.length - 1]!.xEnd;
const clean = (s: string) => s.replace(/[\u0000-\u0008\u000b-\u001f\u00ad]/g, '').replace(/\s+/g, ' ');

/** Runs in content-stream order → lines; a new line when the baseline moves or the text jumps back left. */
export function buildLines(runs: readonly TextRun[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  const close = () => {
    if (current && current.cells.some((c) => c.text.trim())) {
      for (const cell of current.cells) cell.text = cell.text.trim();
      current.cells = current.cells.filter((c) => c.text);
      lines.push(current);
    }
    current = null;
  };
  for (const run of runs) {
    const str = clean(run.str);
    if (str.trim()) {
      const size = Math.max(run.size, 1);
      if (current) {
        const line: Line = current;
        const end = lineXEnd(line);
        if (Math.abs(run.y - line.y) > 0.5 * Math.max(size, line.size) || run.x < end - size) close();
      }
      if (!current) {
        current = { cells: [{ x: run.x, xEnd: run.x + run.width, text: str }], y: run.y, size, font: run.font ?? null };
      } else {
        const line: Line = current;
        const cell = line.cells[line.cells.length - 1]!;
        const gap = run.x - cell.xEnd;
        if (gap > CELL_GAP_EM * size) line.cells.push({ x: run.x, xEnd: run.x + run.width, text: str });
        else {
          const needsSpace = gap > SPACE_GAP_EM * size && !/\s$/.test(cell.text) && !/^\s/.test(str);
          cell.text += (needsSpace ? ' ' : '') + str;
          cell.xEnd = Math.max(cell.xEnd, run.x + run.width);
        }
        // The line's size is its largest text, so a heading with a smaller trailing run stays a heading.
        line.size = Math.max(line.size, size);
        if (line.font !== run.font) line.font = null;
      }
    }
    if (run.eol) close();
  }
  close();
  return lines;
}

const round = (size: number) => Math.round(size * 2) / 2;

/** The size most characters are set in. */
export function bodySize(pages: readonly Line[][]): number {
  const weight = new Map<number, number>();
  for (const line of pages.flat())
    weight.set(round(line.size), (weight.get(round(line.size)) ?? 0) + lineText(line).length);
  let best = 0;
  let most = -1;
  for (const [size, count] of weight) if (count > most) [best, most] = [size, count];
  return best;
}

/** The font most characters are set in (null when pdf.js named none). */
export function bodyFont(pages: readonly Line[][]): string | null {
  const weight = new Map<string, number>();
  for (const line of pages.flat())
    if (line.font !== null) weight.set(line.font, (weight.get(line.font) ?? 0) + lineText(line).length);
  return [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

const PAGE_NUMBER = /^(page\s*)?[-–—([]?\s*\d{1,4}\s*[-–—)\]]?(\s*(of|\/)\s*\d{1,4})?$/i;
const shape = (line: Line) => lineText(line).toLowerCase().replace(/\d+/g, '#');

/** Lines at a page's edges: on the highest and lowest baselines (two each on a full page), where heads and feet sit. */
function edgeLines(lines: readonly Line[]): Set<Line> {
  const ys = [...new Set(lines.map((l) => l.y))].sort((a, b) => b - a);
  const depth = ys.length >= 8 ? 2 : 1;
  const edgeYs = new Set([...ys.slice(0, depth), ...ys.slice(-depth)]);
  return new Set(lines.filter((l) => edgeYs.has(l.y)));
}

/**
 * Drops page numbers and running heads/feet: lines at the page edges, no larger than body text, that repeat across
 * most pages ("Chapter 3" headings repeat in shape too, but are larger than the body).
 */
export function dropRunningLines(pages: Line[][], body: number): Line[][] {
  const edgesPerPage = pages.map(edgeLines);
  const counts = new Map<string, number>();
  for (const edges of edgesPerPage)
    for (const key of new Set([...edges].map(shape))) counts.set(key, (counts.get(key) ?? 0) + 1);
  const repeated = (line: Line) =>
    pages.length >= 2 && round(line.size) <= body && (counts.get(shape(line)) ?? 0) >= RUNNING_SHARE * pages.length;
  return pages.map((lines, p) => {
    const edges = edgesPerPage[p]!;
    const ys = lines.map((l) => l.y);
    const outermost = (line: Line) => line.y === Math.max(...ys) || line.y === Math.min(...ys);
    return lines.filter(
      (line) => !(edges.has(line) && (repeated(line) || (outermost(line) && PAGE_NUMBER.test(lineText(line).trim())))),
    );
  });
}

/** Words written with a hyphen somewhere in the document: such a word split at its hyphen keeps it when re-joined. */
export function hyphenatedWords(texts: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const text of texts)
    for (const match of text.matchAll(/\p{L}+(?:-\p{L}+)+/gu)) words.add(match[0].toLowerCase());
  return words;
}

/**
 * Joins a paragraph's lines. A line ending in letter + hyphen continues without a space: the hyphen goes when the next
 * line starts in lower case and the document never writes that word with a hyphen (typesetter hyphenation,
 * "sweet-" + "ens"), and stays otherwise ("south-" + "facing" when "south-facing" occurs elsewhere, "LEFT-" + "END").
 */
export function joinLines(parts: readonly string[], compounds: ReadonlySet<string> = new Set()): string {
  let out = '';
  for (const part of parts) {
    if (!out) out = part;
    else if (/\p{L}-$/u.test(out)) {
      const left = /\p{L}+-$/u.exec(out)![0];
      const right = /^\p{L}*/u.exec(part)![0];
      const compound = compounds.has((left + right).toLowerCase());
      out = /^\p{Ll}/u.test(part) && !compound ? out.slice(0, -1) + part : out + part;
    } else out += ' ' + part;
  }
  return out;
}

const BULLET = /^([•◦▪▫●○■□‣⁃∙·\-–*])\s+(.*)$/u;
const NUMBERED = /^(\(?\d{1,3}[.)]|\(?[a-z][.)])\s+(.*)$/u;

function isTableRow(line: Line): boolean {
  return line.cells.length >= 2 && line.cells.every((c) => c.text.length <= TABLE_MAX_CELL_CHARS);
}

/** Rows belong to one table when they have the same number of cells and each cell overlaps the one above it. */
function alignedWith(row: Line, previous: Line): boolean {
  if (row.cells.length !== previous.cells.length) return false;
  return row.cells.every((cell, i) => {
    const above = previous.cells[i]!;
    return cell.x < above.xEnd + row.size && cell.xEnd > above.x - row.size;
  });
}

/** Typical distance between consecutive baselines of body lines, for telling paragraph gaps from line steps. */
function lineStep(lines: readonly Line[], body: number): number {
  const steps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const step = lines[i - 1]!.y - lines[i]!.y;
    if (step > 0 && round(lines[i]!.size) === body && round(lines[i - 1]!.size) === body) steps.push(step);
  }
  steps.sort((a, b) => a - b);
  return steps[Math.floor(steps.length / 2)] ?? body * 1.2;
}

interface Paragraph {
  parts: string[];
  last: Line;
  right: number;
  kind: 'paragraph' | 'item';
  marker: string;
}

/** Headings set in the body's size (bold) are shorter than sized ones: a longer line of its own is a bold lead-in. */
const EMPHASIS_HEADING_MAX_CHARS = 100;

/**
 * A heading set at the body's size (or a little larger) in another font, as bold headings are: a line of its own, in
 * one font that is not the body's, no smaller than the body, not ending like a clause, followed by another font.
 */
function isEmphasisHeading(
  lines: readonly Line[],
  i: number,
  body: number,
  font: string | null,
  step: number,
): boolean {
  const line = lines[i]!;
  const text = lineText(line);
  if (font === null || line.font === null || line.font === font || round(line.size) < body) return false;
  if (text.length > EMPHASIS_HEADING_MAX_CHARS || line.cells.length > 1 || /[.,;:]$/.test(text)) return false;
  const previous = lines[i - 1];
  const next = lines[i + 1];
  const gapAbove = previous ? previous.y - line.y : Infinity;
  // Above: a paragraph gap, or the top of a page or column (the text jumped up).
  const apartAbove = gapAbove > step * PARAGRAPH_GAP_RATIO || gapAbove < 0;
  return apartAbove && (next === undefined || next.font !== line.font);
}

/** One page's lines → blocks; `font`: the body's (bodyFont). */
export function buildBlocks(
  lines: readonly Line[],
  body: number,
  compounds: ReadonlySet<string> = new Set(),
  font: string | null = null,
): Block[] {
  const blocks: Block[] = [];
  const step = lineStep(lines, body);
  let paragraph: Paragraph | null = null;
  const flush = () => {
    if (paragraph) {
      const text = joinLines(paragraph.parts, compounds);
      blocks.push(
        paragraph.kind === 'item' ? { kind: 'item', marker: paragraph.marker, text } : { kind: 'paragraph', text },
      );
    }
    paragraph = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const text = lineText(line);
    const sized = line.size >= body * HEADING_MIN_RATIO && text.length <= HEADING_MAX_CHARS;
    if (sized || isEmphasisHeading(lines, i, body, font, step)) {
      flush();
      const last = blocks[blocks.length - 1];
      const previous = lines[i - 1];
      // A heading that wraps: same size, right below the previous heading line.
      if (
        last?.kind === 'heading' &&
        previous &&
        round(last.size) === round(line.size) &&
        previous.y - line.y < line.size * 1.6
      )
        last.text += ' ' + text;
      else blocks.push({ kind: 'heading', size: line.size, text });
      continue;
    }
    if (isTableRow(line)) {
      const next = lines[i + 1];
      const last = blocks[blocks.length - 1];
      const previous = lines[i - 1];
      const continues = last?.kind === 'table' && previous !== undefined && alignedWith(line, previous);
      if (continues || (next !== undefined && isTableRow(next) && alignedWith(next, line))) {
        flush();
        const row = line.cells.map((c) => c.text);
        if (continues) last.rows.push(row);
        else blocks.push({ kind: 'table', rows: [row] });
        continue;
      }
    }
    const bullet = BULLET.exec(text) ?? NUMBERED.exec(text);
    if (paragraph) {
      const p: Paragraph = paragraph;
      const gap = p.last.y - line.y;
      const lastText = lineText(p.last);
      const startsNew =
        bullet !== null ||
        gap > step * PARAGRAPH_GAP_RATIO ||
        // jumped up: a new column, where a sentence may go on
        (gap < -line.size && !(/[\p{L},;-]$/u.test(lastText) && /^\p{Ll}/u.test(text))) ||
        round(line.size) !== round(p.last.size) ||
        (gap > 0 && p.kind === 'paragraph' && lineX(line) > lineX(p.last) + line.size) || // first-line indent
        (gap > 0 &&
          /[.!?:]["')\]]?$/.test(lastText) &&
          lineXEnd(p.last) < p.right - SHORT_LINE_SHARE * (p.right - lineX(p.last))); // short last line
      if (!startsNew) {
        p.parts.push(text);
        p.last = line;
        p.right = Math.max(p.right, lineXEnd(line));
        continue;
      }
    }
    flush();
    // The column's right edge, for telling a paragraph's short last line: this line's, or the next one's when longer.
    const right = Math.max(lineXEnd(line), lines[i + 1] ? lineXEnd(lines[i + 1]!) : 0);
    if (bullet)
      paragraph = {
        parts: [bullet[2] ?? ''],
        last: line,
        right,
        kind: 'item',
        marker: /^\(?\d/.test(bullet[1]!) ? bullet[1]!.replace(/[()]/g, '').replace(/\)$/, '.') : '-',
      };
    else paragraph = { parts: [text], last: line, right, kind: 'paragraph', marker: '' };
  }
  flush();
  return blocks;
}

const escapeLeading = (text: string) => text.replace(/^([#>])/, '\\$1');
const escapeCell = (text: string) => text.replace(/\|/g, '\\|');

/**
 * Heading sizes, largest first, → Markdown levels; a single largest heading (the title) is level 1, else sections start
 * at 2.
 */
function headingLevels(pages: readonly Block[][]): (size: number) => number {
  const headings = pages.flat().filter((b): b is Extract<Block, { kind: 'heading' }> => b.kind === 'heading');
  const sizes = [...new Set(headings.map((h) => round(h.size)))].sort((a, b) => b - a);
  const largest = headings.filter((h) => round(h.size) === sizes[0]).length;
  const first = largest === 1 ? 1 : 2;
  return (size) => Math.min(first + sizes.indexOf(round(size)), 4);
}

function renderBlock(block: Block, level: (size: number) => number): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(level(block.size))} ${block.text}`;
    case 'paragraph':
      return escapeLeading(block.text);
    case 'item':
      return `${block.marker} ${block.text}`;
    case 'table': {
      const width = Math.max(...block.rows.map((r) => r.length));
      const row = (cells: string[]) =>
        `| ${Array.from({ length: width }, (_, i) => escapeCell(cells[i] ?? '')).join(' | ')} |`;
      const [head, ...rest] = block.rows;
      return [row(head!), `|${' --- |'.repeat(width)}`, ...rest.map(row)].join('\n');
    }
  }
}

export interface LaidOut {
  /** Markdown per page, in order (empty string for a page without text). */
  pages: string[];
  /** The first heading, for a title when the PDF names none. */
  firstHeading: string | null;
}

/**
 * `context`: pages of the same document read for their evidence alone (running heads, the body size, heading sizes)
 * when only some pages are laid out; they are not in the result.
 */
export function layoutPages(
  runsPerPage: readonly (readonly TextRun[])[],
  context: readonly (readonly TextRun[])[] = [],
): LaidOut {
  const raw = [...runsPerPage, ...context].map(buildLines);
  const body = bodySize(raw);
  const lines = dropRunningLines(raw, body);
  const compounds = hyphenatedWords(lines.flat().map(lineText));
  const font = bodyFont(lines);
  const blocks = lines.map((pageLines) => buildBlocks(pageLines, body, compounds, font));
  const level = headingLevels(blocks);
  const output = blocks.slice(0, runsPerPage.length);
  const firstHeading = output.flat().find((b) => b.kind === 'heading');
  return {
    pages: output.map((pageBlocks) => joinItems(pageBlocks.map((b) => ({ block: b, md: renderBlock(b, level) })))),
    firstHeading: firstHeading?.kind === 'heading' ? firstHeading.text : null,
  };
}

/** Blank lines between blocks, none between consecutive list items (so they stay one list). */
function joinItems(rendered: { block: Block; md: string }[]): string {
  let out = '';
  rendered.forEach(({ block, md }, i) => {
    if (i > 0) out += block.kind === 'item' && rendered[i - 1]!.block.kind === 'item' ? '\n' : '\n\n';
    out += md;
  });
  return out;
}
