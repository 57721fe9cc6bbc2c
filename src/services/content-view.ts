// The content one request reads from a cached page: its Markdown restyled for the `links` and `images` options, or
// its text; the total token count; and its parts within a budget. A restyled copy is kept while the page is read,
// so paging through it does not lex and count it again for every part.
import { LRUCache } from 'lru-cache';
import {
  appendDefinitions,
  definitionsIn,
  isDefaultStyle,
  styleMarkdown,
  withDefinitions,
  type MarkdownStyle,
  type StyledMarkdown,
} from '../extract/formats/link-style.js';
import type { Format } from '../contract/fetch.js';
import { countTokens } from '../tokens/count.js';
import { selectForQuery, withoutRanges, type QueryPart, type Range } from '../tokens/select.js';
import {
  createDocumentIndexes,
  takePart,
  withTableHead,
  type DocumentIndexes,
  type TrimResult,
} from '../tokens/trim.js';
import type { StoredPage } from './render.js';

export interface ContentView {
  /** What cursor offsets point into: the content without a reference list. */
  body: string;
  /** The content returned when it is read whole (reference style: with every definition) and its token count. */
  whole: string;
  total: number;
  /** The part from `offset` within `budget` tokens; in reference style with the definitions of the links it holds. */
  part(offset: number, budget: number | null): TrimResult;
  /** The blocks that best match `query` within `budget` tokens (with the definitions they use), or null. */
  select(query: string, budget: number): QueryPart | null;
  /** What is left to read once a query's part showed `shown`: the offsets of its cursors point into this view. */
  rest(shown: Range[]): ContentView;
}

interface Restyled {
  styled: StyledMarkdown;
  whole: string;
  total: number;
}

/**
 * What content views are made with, kept while pages are read: restyled Markdown (one LRU per style, keyed by the
 * stored Markdown, bounded by characters since pages can be megabytes long) and the documents' block indexes
 * (tokens/trim.ts). They hold pages' content, so the pipeline owns them (pipeline.ts) as it owns its cache.
 */
export function createViewMemos() {
  return { restyled: new Map<string, LRUCache<string, Restyled>>(), indexes: createDocumentIndexes() };
}

export type ViewMemos = ReturnType<typeof createViewMemos>;

function restyle(markdown: string, style: MarkdownStyle, restyledByStyle: ViewMemos['restyled']): Restyled {
  const styleKey = `${style.links}/${style.images}`;
  let cache = restyledByStyle.get(styleKey);
  if (!cache) {
    cache = new LRUCache<string, Restyled>({
      max: 32,
      maxSize: 4_000_000,
      sizeCalculation: (_value, key) => Math.max(1, key.length),
    });
    restyledByStyle.set(styleKey, cache);
  }
  let entry = cache.get(markdown);
  if (!entry) {
    const styled = styleMarkdown(markdown, style);
    const whole = withDefinitions(styled.body, styled, 0, styled.body.length);
    entry = { styled, whole, total: countTokens(whole) };
    cache.set(markdown, entry);
  }
  return entry;
}

/** `style` applies to Markdown (and json, built from it); text has no links or images to restyle. */
export function viewContent(page: StoredPage, format: Format, style: MarkdownStyle, memos: ViewMemos): ContentView {
  const { indexes } = memos;
  if (format === 'text') return plainView(page.text, indexes, page.tokens.text);
  if (isDefaultStyle(style)) return plainView(page.markdown, indexes, page.tokens.markdown);
  const { styled, whole, total } = restyle(page.markdown, style, memos.restyled);
  if (styled.uses.length === 0) return plainView(styled.body, indexes, total);
  return referencedView(styled, whole, indexes, total);
}

/** `total` is counted when first asked for when it is not known (the rest of a page after a query's part). */
function plainView(content: string, indexes: DocumentIndexes, total?: number): ContentView {
  let counted = total;
  return {
    body: content,
    whole: content,
    get total() {
      return (counted ??= countTokens(content));
    },
    part: (offset, budget) =>
      withTableHead(content, offset, budget, indexes, (room) => takePart(content, offset, room, indexes)),
    select: (query, budget) => selectForQuery(content, query, budget, indexes),
    rest(shown) {
      return plainView(withoutRanges(content, shown), indexes);
    },
  };
}

function referencedView(styled: StyledMarkdown, whole: string, indexes: DocumentIndexes, total?: number): ContentView {
  let counted = total;
  return {
    body: styled.body,
    whole,
    get total() {
      return (counted ??= countTokens(whole));
    },
    part: (offset, budget) =>
      withTableHead(styled.body, offset, budget, indexes, (room) => takeReferencedPart(styled, offset, room, indexes)),
    select: (query, budget) => selectReferenced(styled, query, budget, indexes),
    rest(shown) {
      const rest = withoutUses(styled, shown);
      return referencedView(rest, withDefinitions(rest.body, rest, 0, rest.body.length), indexes);
    },
  };
}

/** The styled body without `shown`, its reference labels moved with the text (their numbers stay the same). */
function withoutUses(styled: StyledMarkdown, shown: Range[]): StyledMarkdown {
  const uses = styled.uses.flatMap((use) => {
    let removedBefore = 0;
    for (const [start, end] of shown) {
      if (use.start >= start && use.start < end) return [];
      if (end <= use.start) removedBefore += end - start;
    }
    return [{ ...use, start: use.start - removedBefore, end: use.end - removedBefore }];
  });
  return { body: withoutRanges(styled.body, shown), urls: styled.urls, uses };
}

/** A query's part followed by the definitions of the references it holds, taken with less room until both fit. */
function selectReferenced(
  styled: StyledMarkdown,
  query: string,
  budget: number,
  indexes: DocumentIndexes,
): QueryPart | null {
  for (let room = budget; room > 0;) {
    const part = selectForQuery(styled.body, query, room, indexes);
    if (part === null) return null;
    const lines = [...new Set(part.shown.flatMap(([start, end]) => definitionsIn(styled, start, end)))].sort(
      (a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]),
    );
    const content = appendDefinitions(part.content, lines);
    const tokenCount = content === part.content ? part.tokenCount : countTokens(content);
    if (tokenCount <= budget) return { ...part, content, tokenCount };
    const over = tokenCount - budget;
    room = room > over ? room - over : Math.floor(room / 2);
  }
  return null;
}

/**
 * A part followed by the definitions of the references it holds, so its numbers point somewhere. When they push it
 * over the budget, the part is taken again with less room until both fit.
 */
function takeReferencedPart(
  styled: StyledMarkdown,
  offset: number,
  budget: number | null,
  indexes: DocumentIndexes,
): TrimResult {
  const start = firstNonSpace(styled.body, offset);
  const referenced = (part: TrimResult) => definitionsIn(styled, start, start + part.content.length);
  if (budget === null) {
    const part = takePart(styled.body, offset, null, indexes);
    return withCount(part, appendDefinitions(part.content, referenced(part)));
  }
  for (let room = budget; room > 0;) {
    const part = takePart(styled.body, offset, room, indexes);
    const lines = referenced(part);
    if (lines.length === 0) return part;
    const content = appendDefinitions(part.content, lines);
    const tokenCount = countTokens(content);
    if (tokenCount <= budget) return { ...part, content, tokenCount };
    const over = tokenCount - budget;
    room = room > over ? room - over : Math.floor(room / 2);
  }
  // A definition longer than the whole budget, right where the part starts: the part must still move on, so it
  // keeps the room it has and lists the definitions that fit.
  const part = takePart(styled.body, offset, budget, indexes);
  const kept: string[] = [];
  for (const line of referenced(part)) {
    if (countTokens(appendDefinitions(part.content, [...kept, line])) <= budget) kept.push(line);
  }
  return withCount(part, appendDefinitions(part.content, kept));
}

function withCount(part: TrimResult, content: string): TrimResult {
  return content === part.content ? part : { ...part, content, tokenCount: countTokens(content) };
}

function firstNonSpace(text: string, offset: number): number {
  const pattern = /\S/g;
  pattern.lastIndex = offset;
  return pattern.exec(text)?.index ?? text.length;
}
