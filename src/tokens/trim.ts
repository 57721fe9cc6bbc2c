// Reading long content in parts: each part ends at a block boundary within a token budget, and comes with an outline
// (headings and their token counts) of what is left, so a reader can decide whether to read on.
import { LRUCache } from 'lru-cache';
import { splitBlocks, type Block } from './blocks.js';
import { countTokens, countTokensUpTo, fitTokens } from './count.js';

export interface OutlineEntry {
  level: number;
  title: string;
  tokens: number;
}

export interface TrimResult {
  content: string;
  tokenCount: number;
  truncated: boolean;
  nextOffset: number | null;
  outline: OutlineEntry[];
}

interface DocumentIndex {
  blocks: Block[];
  headings: number[]; // indexes into blocks
  sectionTokens: Map<number, number>; // by heading block index, counted when first needed
}

/**
 * A reader pages through one document with the same content string again and again: its blocks are split and its
 * sections counted once while it is in use. Bounded by total characters, since pages can be megabytes long; the fetch
 * pipeline owns one (services/content-view.ts).
 */
export function createDocumentIndexes() {
  return new LRUCache<string, DocumentIndex>({
    max: 64,
    maxSize: 8_000_000,
    sizeCalculation: (_index, content) => Math.max(1, content.length),
  });
}

export type DocumentIndexes = ReturnType<typeof createDocumentIndexes>;

/**
 * Takes the part of `content` starting at char `offset` that fits `budget` tokens (budget null = everything from
 * offset). When the budget cannot hold even the first character, the part is empty and nextOffset stays at offset.
 * `indexes`: where the content's index is kept for the next part; without, it is made for this part alone.
 */
export function takePart(
  content: string,
  offset: number,
  budget: number | null,
  indexes?: DocumentIndexes,
): TrimResult {
  const start = skipSpace(content, offset);
  const rest = content.slice(start).trimEnd();
  // A token is at least one byte, so a rest of at most `budget` bytes fits without counting block by block.
  if (budget === null || Buffer.byteLength(rest, 'utf8') <= budget) {
    return { content: rest, tokenCount: countTokens(rest), truncated: false, nextOffset: null, outline: [] };
  }
  const index = indexDocument(content, indexes);
  const { blocks } = index;
  const first = firstBlockEndingAfter(blocks, start);

  // Count block by block, each with the spaces after it (so tokens that merge across the gap are counted as in the
  // part), stopping early on the block that overflows. The part drops the spaces after its last block: allow one token.
  let total = 0;
  let last = first - 1;
  for (let i = first; i < blocks.length && total <= budget + 1; i++) {
    const next = blocks[i + 1];
    const chunk = content.slice(Math.max(start, blocks[i]!.lineStart), next ? next.lineStart : content.length);
    total += countTokensUpTo(chunk, budget + 1 - total);
    if (total <= budget + 1) last = i;
  }
  // The sum is an estimate; the exact count of the chosen prefix decides, backing off a block at a time. A part does
  // not end on a heading when it can end before it: the heading then opens the next part and shows in the outline.
  for (let i = last; i >= first; i--) {
    if (blocks[i]!.heading && i > first) continue;
    const part = content.slice(start, blocks[i]!.end);
    const count = countTokens(part);
    if (count <= budget) return finishPart(content, index, part, count, blocks[i]!.end);
  }
  // Not even the first block fits: cut it at a token boundary.
  const block = content.slice(start, blocks[first]!.end);
  for (let within = budget; ; within--) {
    const end = fitTokens(block, within);
    const part = block.slice(0, end).trimEnd();
    const count = countTokens(part);
    if (count <= budget) return finishPart(content, index, part, count, start + end);
  }
}

/**
 * A part that starts on a later row of a table opens with the table's header and separator lines again, so it reads
 * as a table of its own: `take` takes the rows with the room the header leaves (takePart, or a caller's wrapper of
 * it). The header is not content the offsets move over. Other parts are `take`'s alone.
 */
export function withTableHead(
  content: string,
  offset: number,
  budget: number | null,
  indexes: DocumentIndexes | undefined,
  take: (budget: number | null) => TrimResult,
): TrimResult {
  const head = tableHeadAt(content, offset, indexes);
  if (head === null) return take(budget);
  // The joined count is rarely the sum of the two, so the room shrinks until the joined part fits.
  for (let room = budget === null ? null : budget - countTokens(`${head}\n`); room === null || room > 0;) {
    const part = take(room);
    // Rows cut at a token boundary are no table: then the rows alone, with all the room.
    if (part.content === '' || (part.nextOffset !== null && !/\s/.test(content[part.nextOffset - 1]!))) break;
    const joined = `${head}\n${part.content}`;
    const tokenCount = countTokens(joined);
    if (room === null || tokenCount <= budget!) return { ...part, content: joined, tokenCount };
    room -= tokenCount - budget!;
  }
  return take(budget); // no room for the header and a row: the rows alone
}

/** The header and separator lines of the table whose later row starts at `offset`; null elsewhere. */
function tableHeadAt(content: string, offset: number, indexes: DocumentIndexes | undefined): string | null {
  const start = skipSpace(content, offset);
  if (start === 0 || start >= content.length) return null;
  const { blocks } = indexDocument(content, indexes);
  const block = blocks[firstBlockEndingAfter(blocks, start)];
  return block?.tableHead && block.start === start ? content.slice(block.tableHead.start, block.tableHead.end) : null;
}

function finishPart(content: string, index: DocumentIndex, part: string, tokenCount: number, end: number): TrimResult {
  const next = skipSpace(content, end);
  if (next >= content.length) return { content: part, tokenCount, truncated: false, nextOffset: null, outline: [] };
  return { content: part, tokenCount, truncated: true, nextOffset: next, outline: outlineFrom(content, index, next) };
}

/**
 * The headings at or after `offset`, each with the token count of its section (up to the next heading). When the cut
 * falls inside a section, its rest comes first, as "<heading> (continued)" (level 0 and "(continued)" before any
 * heading), so the outline accounts for every token that was cut.
 */
function outlineFrom(content: string, index: DocumentIndex, offset: number): OutlineEntry[] {
  const { blocks, headings, sectionTokens } = index;
  const outline: OutlineEntry[] = [];
  const following = headings.findIndex((blockIndex) => blocks[blockIndex]!.start >= offset);
  const restEnd = following === -1 ? content.length : blocks[headings[following]!]!.lineStart;
  const rest = content.slice(offset, restEnd).trimEnd();
  if (rest !== '') {
    const enclosing = blocks[headings[(following === -1 ? headings.length : following) - 1] ?? -1]?.heading;
    outline.push({
      level: enclosing?.level ?? 0,
      title: `${enclosing?.title ?? ''} (continued)`.trimStart(),
      tokens: countTokens(rest),
    });
  }
  headings.forEach((blockIndex, i) => {
    const block = blocks[blockIndex]!;
    if (block.start < offset) return;
    let tokens = sectionTokens.get(blockIndex);
    if (tokens === undefined) {
      const nextHeading = headings[i + 1];
      const end = nextHeading === undefined ? content.length : blocks[nextHeading]!.lineStart;
      tokens = countTokens(content.slice(block.start, end).trimEnd());
      sectionTokens.set(blockIndex, tokens);
    }
    outline.push({ level: block.heading!.level, title: block.heading!.title, tokens });
  });
  return outline;
}

function indexDocument(content: string, indexes: DocumentIndexes | undefined): DocumentIndex {
  let index = indexes?.get(content);
  if (!index) {
    const blocks = splitBlocks(content);
    const headings = blocks.flatMap((block, i) => (block.heading ? [i] : []));
    index = { blocks, headings, sectionTokens: new Map() };
    indexes?.set(content, index);
  }
  return index;
}

/** The first block that ends after `offset` (the one `offset` is in, since offsets sit on non-space characters). */
function firstBlockEndingAfter(blocks: Block[], offset: number): number {
  let low = 0;
  let high = blocks.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (blocks[mid]!.end > offset) high = mid;
    else low = mid + 1;
  }
  return low;
}

function skipSpace(content: string, offset: number): number {
  let i = Math.max(0, offset);
  while (i < content.length && /\s/.test(content[i]!)) i++;
  return i;
}
