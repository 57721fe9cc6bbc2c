// Splits Markdown or plain text into the blocks a part may end between: headings, paragraphs, list items, table rows
// and whole fenced code blocks.

export interface Block {
  lineStart: number; // where the block's first line begins, indentation included
  start: number; // its first non-space character
  end: number; // just after its last non-space character
  heading?: { level: number; title: string };
  /** A table's later row: where the table's header and separator lines are, which a part starting here repeats. */
  tableHead?: { start: number; end: number };
}

const BLANK = /^\s*$/;
const FENCE = /^\s*(`{3,}|~{3,})/; // any indentation: fences inside list items are indented too
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * Every non-space character of `content` lies in exactly one block. A table's header, separator and first row form
 * one block, so no part ends on a table without rows; each later row is a block of its own, which knows its header.
 */
export function splitBlocks(content: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null; // the block the next line may continue
  let fenceEnd: RegExp | null = null; // the closing line of the open code fence
  let table: 'separator' | 'first-row' | 'rows' | null = null;
  let tableHead = { start: 0, end: 0 };

  const open = (lineStart: number, line: string): Block => {
    const start = lineStart + line.length - line.trimStart().length;
    const block: Block = { lineStart, start, end: lineStart + line.trimEnd().length };
    blocks.push(block);
    return block;
  };

  let lineStart = 0;
  while (lineStart < content.length) {
    const newline = content.indexOf('\n', lineStart);
    const line = content.slice(lineStart, newline < 0 ? content.length : newline);
    const next = newline < 0 ? content.length : newline + 1;
    const extend = () => (current!.end = lineStart + line.trimEnd().length);
    let match: RegExpExecArray | null;

    if (table && !line.includes('|')) table = current = null; // a line without cells ends the table

    if (fenceEnd) {
      if (!BLANK.test(line)) extend();
      if (fenceEnd.test(line)) fenceEnd = current = null;
    } else if (BLANK.test(line)) {
      current = null;
    } else if ((match = FENCE.exec(line))) {
      const marker = match[1]!;
      fenceEnd = new RegExp(`^\\s*${marker[0]}{${marker.length},}\\s*$`);
      current = open(lineStart, line);
    } else if ((match = HEADING.exec(line))) {
      open(lineStart, line).heading = { level: match[1]!.length, title: (match[2] ?? '').trim() };
      current = table = null;
    } else if (table) {
      if (table === 'rows') (current = open(lineStart, line)).tableHead = tableHead;
      else extend();
      if (table === 'separator') tableHead = { start: current!.start, end: current!.end };
      table = table === 'separator' ? 'first-row' : 'rows';
    } else if (line.includes('|') && isTableSeparator(content, next)) {
      current = open(lineStart, line);
      table = 'separator';
    } else if (LIST_ITEM.test(line) || !current) {
      current = open(lineStart, line);
    } else {
      extend();
    }
    lineStart = next;
  }
  return blocks;
}

function isTableSeparator(content: string, lineStart: number): boolean {
  const newline = content.indexOf('\n', lineStart);
  const line = content.slice(lineStart, newline < 0 ? content.length : newline);
  return line.includes('|') && TABLE_SEPARATOR.test(line);
}
