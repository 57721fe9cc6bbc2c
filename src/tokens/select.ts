// The part of a page that answers a query: its best-matching blocks within a token budget, in document order, each
// under its heading path, with a marker where text was left out; and the ranges shown, so a reader can go on through
// the rest of the page (the page without them) in document order.
import { splitBlocks } from './blocks.js';
import { countTokens } from './count.js';
import { queryTerms, termScores } from './ranking.js';
import { takePart, type DocumentIndexes, type OutlineEntry } from './trim.js';

/** [start, end) offsets into the content. */
export type Range = [number, number];

export interface QueryPart {
  content: string;
  tokenCount: number;
  /** The blocks shown, as ascending disjoint ranges: what the rest of the page leaves out. */
  shown: Range[];
  /** Tokens of the page not shown (summed block by block). */
  leftOut: number;
  /** The sections with text left out, most relevant first, with the tokens left out of each. */
  outline: OutlineEntry[];
}

/** Shown ranges travel in cursors, which must stay short: a selection is at most this many runs of blocks. */
export const MAX_SHOWN_RANGES = 12;
/**
 * What a block costs beyond its own tokens: the blank line joining it to the part (one token); a marker line is 8
 * tokens and its join. Estimates that erred high (2 and 12) left 10 % of the budget unused on WCXB pages.
 */
const JOIN_TOKENS = 1;
const MARKER_TOKENS = 9;
/** The most tokens short blocks are joined into before they are ranked (see passages()). */
const PASSAGE_TOKENS = 80;
/** Paragraphs longer than this are ranked and shown as runs of sentences (see sentenceRuns()). */
const SPLIT_TOKENS = 60;
/**
 * A query term counts this much less in a block for each chosen block that already holds it, so the budget goes to
 * blocks that match the query's other terms rather than to repeats of the same match (maximal marginal relevance,
 * in its simplest form).
 */
const SHOWN_TERM_DECAY = 0.2;
/** The least a block adds to a part: a token and the line break before it. */
const MIN_COST = 3;
/** The first passage is shown whatever the query when it takes at most a quarter of the budget: it says what the
 * page is about (a query of each WCXB page's title found 27 % of its must-have snippets in 500 tokens with it, 24 %
 * without). */
const LEAD_PASSAGES = 1;
const BEFORE_FIRST_HEADING = '(before the first heading)';

export function leftOutMarker(tokens: number): string {
  return `[… ${tokens} tokens left out …]`;
}

/**
 * The blocks of `content` that best match `query` within `budget` tokens, or null when none fits or when they hold no
 * more of the query's terms than the head of the page does (the head then answers as well, in order: a query of each
 * WCXB page's title found 0.90x the head cut's must-have snippets in 500 tokens without this, 0.99x with it). Blocks
 * without any query term fill what room is left, in document order, so a query that matches little still reads like
 * the page. `indexes`: as takePart's (trim.ts).
 */
export function selectForQuery(
  content: string,
  query: string,
  budget: number,
  indexes?: DocumentIndexes,
): QueryPart | null {
  const blocks = passages(content, splitBlocks(content));
  const paths: number[][] = [];
  const stack: number[] = [];
  blocks.forEach((block, i) => {
    if (block.heading) {
      while (stack.length > 0 && blocks[stack.at(-1)!]!.heading!.level >= block.heading.level) stack.pop();
      paths.push([...stack]);
      stack.push(i);
    } else paths.push([...stack]);
  });
  const text = (i: number) => content.slice(blocks[i]!.start, blocks[i]!.end);
  const tokens = blocks.map((_, i) => countTokens(text(i)));
  const units = blocks.flatMap((block, i) => (block.heading ? [] : [i]));
  const parts = new Map<number, Map<string, number>>();
  termScores(
    units.map((i) => ({ text: text(i), headings: paths[i]!.map((h) => blocks[h]!.heading!.title) })),
    query,
  ).forEach((termParts, k) => parts.set(units[k]!, termParts));
  const scores = new Map<number, number>();
  for (const [i, termParts] of parts) scores.set(i, sum(termParts.values()));
  const score = (i: number) => scores.get(i) ?? 0;
  // How much a block adds to what is chosen: a term already shown counts less each time it is shown again.
  const shownTerms = new Map<string, number>();
  const gain = (i: number) =>
    sum([...parts.get(i)!].map(([term, part]) => part * SHOWN_TERM_DECAY ** (shownTerms.get(term) ?? 0)));
  const lead = units.slice(0, LEAD_PASSAGES).filter((i) => tokens[i]! <= budget / 4);

  // Greedy by relevance on an estimate that errs high; the exact count of the assembled part decides below.
  const chosen: number[] = [];
  const isChosen = new Set<number>();
  const headingShown = new Set<number>();
  let estimate = 0;
  let runs = 0;
  const tryAdd = (i: number): 'added' | 'no room' | 'no run' => {
    const joins = (isChosen.has(i - 1) ? 1 : 0) + (isChosen.has(i + 1) ? 1 : 0);
    if (runs + 1 - joins > MAX_SHOWN_RANGES) return 'no run';
    const newHeadings = paths[i]!.filter((h) => !headingShown.has(h));
    const cost =
      tokens[i]! +
      JOIN_TOKENS +
      (1 - joins) * MARKER_TOKENS +
      newHeadings.reduce((sum, h) => sum + tokens[h]! + JOIN_TOKENS, 0);
    if (estimate + cost > budget) return 'no room';
    estimate += cost;
    runs += 1 - joins;
    chosen.push(i);
    isChosen.add(i);
    for (const h of newHeadings) headingShown.add(h);
    for (const term of parts.get(i)!.keys()) shownTerms.set(term, (shownTerms.get(term) ?? 0) + 1);
    return 'added';
  };
  for (const i of lead) tryAdd(i);
  // The matching blocks by score; a block's gain is at most its score, so the search for the best gain stops early.
  const pending = units.filter((i) => score(i) > 0 && !isChosen.has(i)).sort((a, b) => score(b) - score(a) || a - b);
  while (pending.length > 0 && estimate + MIN_COST <= budget) {
    let best = 0;
    let bestGain = gain(pending[0]!);
    for (let k = 1; k < pending.length && score(pending[k]!) > bestGain; k++) {
      const candidate = gain(pending[k]!);
      if (candidate > bestGain) [best, bestGain] = [k, candidate];
    }
    tryAdd(pending.splice(best, 1)[0]!);
  }
  // Blocks without a query term fill the room left from the top of the page, up to the first that does not fit.
  for (const i of units) {
    if (score(i) > 0 || isChosen.has(i)) continue;
    if (runs >= MAX_SHOWN_RANGES || tryAdd(i) === 'no room') break;
  }

  while (chosen.length > 0) {
    const inOrder = [...chosen].sort((a, b) => a - b);
    const part = assemble(content, blocks, paths, tokens, inOrder);
    const tokenCount = countTokens(part);
    if (tokenCount <= budget) {
      const wanted = new Set(queryTerms(query));
      if (termsHeld(part, wanted) <= termsHeld(takePart(content, 0, budget, indexes).content, wanted)) return null;
      return { content: part, tokenCount, ...leftOutOf(blocks, paths, tokens, inOrder, score) };
    }
    chosen.pop(); // the least relevant block goes first
  }
  return null;
}

type Blocks = ReturnType<typeof splitBlocks>;

/** How many of the query's distinct terms (`wanted`) `text` holds. */
function termsHeld(text: string, wanted: Set<string>): number {
  return new Set(queryTerms(text).filter((term) => wanted.has(term))).size;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** A paragraph that is not a list item, a table row, a quote or code: the blocks that split into sentences. */
const NOT_PROSE = /^(?:[|`~>]|(?:[-*+]|\d{1,9}[.)])(?:\s|$))/;
/** The end of a sentence: its mark (and a closing quote or bracket), space, and what may begin the next one. */
const SENTENCE_END = /[.!?]["'”’)\]]?\s+(?=[\p{Lu}\p{N}"'“‘([])/gu;

/**
 * A paragraph longer than SPLIT_TOKENS split into runs of whole sentences of at least half that: a long paragraph
 * with one matching sentence then costs that run, not the whole paragraph. Other blocks stay whole.
 */
function sentenceRuns(content: string, blocks: Blocks): Blocks {
  const runs: Blocks = [];
  for (const block of blocks) {
    const body = content.slice(block.start, block.end);
    if (block.heading || NOT_PROSE.test(body) || body.includes('\n') || countTokens(body) <= SPLIT_TOKENS) {
      runs.push(block);
      continue;
    }
    let from = block.start;
    let lineStart = block.lineStart;
    for (const end of body.matchAll(SENTENCE_END)) {
      const cut = block.start + end.index + end[0].trimEnd().length;
      if (countTokens(content.slice(from, cut)) < SPLIT_TOKENS / 2) continue;
      runs.push({ lineStart, start: from, end: cut });
      lineStart = from = block.start + end.index + end[0].length;
    }
    runs.push({ lineStart, start: from, end: block.end });
  }
  return runs;
}

/**
 * Consecutive blocks of one section joined into passages of up to PASSAGE_TOKENS (a block longer than that stays
 * whole): the units that are ranked and shown. A list or a run of short paragraphs then counts as one piece of text,
 * rather than as many tiny ones that each win on length and cost a marker.
 */
function passages(content: string, split: Blocks): Blocks {
  const blocks = sentenceRuns(content, split);
  const joined: Blocks = [];
  let tokens = 0;
  for (const block of blocks) {
    const own = block.heading ? 0 : countTokens(content.slice(block.start, block.end));
    const last = joined.at(-1);
    if (last && !last.heading && !block.heading && tokens + own <= PASSAGE_TOKENS) {
      joined[joined.length - 1] = { ...last, end: block.end };
      tokens += own + 1;
    } else {
      joined.push(block);
      tokens = own;
    }
  }
  return joined;
}

function unitTokensBetween(blocks: Blocks, tokens: number[], from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) if (!blocks[i]!.heading) sum += tokens[i]!;
  return sum;
}

function assemble(content: string, blocks: Blocks, paths: number[][], tokens: number[], inOrder: number[]): string {
  const pieces: string[] = [];
  let open: number[] = [];
  let last = -1;
  const slice = (i: number) => content.slice(blocks[i]!.start, blocks[i]!.end);
  for (const i of inOrder) {
    const path = paths[i]!;
    let same = 0;
    while (same < open.length && same < path.length && open[same] === path[same]) same++;
    // The marker stands where the text was left out: after the headings that come before it, before the others.
    let gapStart = last + 1;
    while (gapStart < i && blocks[gapStart]!.heading) gapStart++;
    const gap = unitTokensBetween(blocks, tokens, gapStart, i);
    const newHeadings = path.slice(same);
    for (const h of newHeadings) if (h < gapStart || gap === 0) pieces.push(slice(h));
    if (gap > 0) pieces.push(leftOutMarker(gap));
    for (const h of newHeadings) if (h >= gapStart && gap > 0) pieces.push(slice(h));
    open = path;
    // Consecutive blocks keep what lay between them: runs of sentences of one paragraph stay one paragraph.
    if (last === i - 1 && pieces.length > 0)
      pieces.push(pieces.pop()! + content.slice(blocks[last]!.end, blocks[i]!.end));
    else pieces.push(slice(i));
    last = i;
  }
  const tail = unitTokensBetween(blocks, tokens, last + 1, blocks.length);
  if (tail > 0) pieces.push(leftOutMarker(tail));
  return pieces.join('\n\n');
}

function leftOutOf(
  blocks: Blocks,
  paths: number[][],
  tokens: number[],
  inOrder: number[],
  score: (i: number) => number,
): Pick<QueryPart, 'shown' | 'leftOut' | 'outline'> {
  const isShown = new Set(inOrder);
  const shown: Range[] = [];
  for (const i of inOrder) {
    const previous = shown.at(-1);
    if (previous && isShown.has(i - 1)) previous[1] = blocks[i]!.end;
    else shown.push([blocks[i]!.lineStart, blocks[i]!.end]);
  }
  const headingShown = new Set(inOrder.flatMap((i) => paths[i]!));
  // Sections run from a heading to the next heading of any level, as in the outline of a plain trimmed read.
  const sections = new Map<number, { left: number; best: number; partly: boolean }>();
  const sectionOf = (i: number) => (blocks[i]!.heading ? i : (paths[i]!.at(-1) ?? -1));
  let leftOut = 0;
  blocks.forEach((block, i) => {
    const key = sectionOf(i);
    let section = sections.get(key);
    if (!section) sections.set(key, (section = { left: 0, best: 0, partly: false }));
    section.best = Math.max(section.best, score(i));
    const visible = block.heading ? headingShown.has(i) : isShown.has(i);
    if (visible && !block.heading) section.partly = true;
    if (!visible) {
      section.left += tokens[i]!;
      leftOut += tokens[i]!;
    }
  });
  const outline = [...sections.entries()]
    .filter(([, section]) => section.left > 0)
    .sort(([a, x], [b, y]) => y.best - x.best || a - b)
    .map(([key, section]): OutlineEntry => {
      const heading = blocks[key]?.heading;
      const title = heading?.title ?? BEFORE_FIRST_HEADING;
      return {
        level: heading?.level ?? 0,
        title: section.partly ? `${title} (partly shown)` : title,
        tokens: section.left,
      };
    });
  return { shown, leftOut, outline };
}

/** `text` without the `ranges` (ascending, disjoint): the rest of a page once a query's part has been read. */
export function withoutRanges(text: string, ranges: readonly Range[]): string {
  let rest = '';
  let from = 0;
  for (const [start, end] of ranges) {
    rest += text.slice(from, start);
    from = end;
  }
  return rest + text.slice(from);
}
