// Turns one cached page into the API's fetch result: picks the format, trims to the budget, adds cursor and outline.
import { createHash } from 'node:crypto';
import type { CacheHit } from '../cache/types.js';
import { markdownToDocument } from '../extract/index.js';
import type { MarkdownStyle } from '../extract/formats/link-style.js';
import type { FetchedPage, FetcherName } from '../fetchers/types.js';
import { declaredType } from '../fetchers/documents/sniff.js';
import { mimeOf } from '../util/media-type.js';
import type { FetchResult, Format } from '../contract/fetch.js';
import { fetchMillicredits, toCredits } from '../pricing.js';
import { FieldError } from '../errors.js';
import { countTokens } from '../tokens/count.js';
import { scoreUnits } from '../tokens/ranking.js';
import type { Range } from '../tokens/select.js';
import type { TrimResult } from '../tokens/trim.js';
import { viewContent, type ContentView, type ViewMemos } from './content-view.js';
import { encodeCursor } from './cursor.js';

/**
 * What the cache holds per URL: the whole content in both renderings, counted once, without the HTML it came from
 * (kept under its own key, fetch-service.ts). Copies cached before a field was added lack it.
 */
export interface StoredPage extends Omit<FetchedPage, 'htmlBrotli'> {
  fetcher: FetcherName;
  fetchMs: number;
  tokens: { markdown: number; text: number };
  contentHash?: string;
  /** A selection's copy: when the page it was extracted from was fetched (else the entry's storedAt says). */
  fetchedAt?: number;
  /** Set when this copy replaced an earlier one: whether its content differs, and when other content was last seen. */
  changed?: boolean;
  lastSeenDifferentAt?: number | null;
  /** Whether the page's HTML was kept (false: the content was not HTML), so selections can be made from this copy. */
  keptHtml?: boolean;
  selection?: { applied: boolean; included: number | null; excluded: number | null };
}

/** A stable hash of extracted Markdown: equal content, equal hash, on every process and backend. */
export function hashContent(markdown: string): string {
  return createHash('sha256').update(markdown).digest('hex').slice(0, 32);
}

/** The counts come with the page when it was made on an extraction thread; they are made here otherwise. */
export function toStoredPage(page: FetchedPage, fetcher: FetcherName, fetchMs: number): StoredPage {
  const { htmlBrotli: _html, shots: _shots, ...content } = page;
  return {
    ...content,
    fetcher,
    fetchMs,
    tokens: page.tokens ?? { markdown: countTokens(page.markdown), text: countTokens(page.text) },
    contentHash: hashContent(page.markdown),
  };
}

/** What a copy that replaces `previous` says of the change (`previous`: the copy it replaces, of the same key). */
export function compareCopies(
  next: StoredPage,
  previous: CacheHit<StoredPage>,
): Pick<StoredPage, 'changed' | 'lastSeenDifferentAt'> {
  const before = previous.value;
  const changed = (before.contentHash ?? hashContent(before.markdown)) !== next.contentHash;
  return {
    changed,
    lastSeenDifferentAt: changed ? (before.fetchedAt ?? previous.storedAt) : (before.lastSeenDifferentAt ?? null),
  };
}

/** Seconds since the copy was fetched. */
export function ageSeconds(entry: CacheHit<StoredPage>, now: number): number {
  return Math.max(0, Math.floor((now - (entry.value.fetchedAt ?? entry.storedAt)) / 1000));
}

export interface RenderOptions {
  requestUrl: string;
  keyHash: string;
  format: Format;
  /** Links and images (Markdown and json only); cursors carry it so every part is rendered alike. */
  style: MarkdownStyle;
  maxTokens: number | null;
  /**
   * The most characters of content (as JavaScript counts them, UTF-16 code units): a part within `maxTokens` that is
   * longer is taken again with fewer tokens, so it still ends at a block boundary and its cursor reads on from there.
   */
  maxChars: number | null;
  offset: number;
  hit: boolean;
  /** The clock's time, for the copy's age. */
  now: number;
  /** With a budget, the first part holds the blocks that best match it; later parts list the outline by relevance. */
  query?: string;
  /** A cursor's read after a query's part: the ranges that part showed, left out of what is read now. */
  skip?: Range[];
}

/** What one request's answer is rendered with, whichever way it is answered (fetch-service.ts), but where it starts. */
export type RequestShape = Omit<RenderOptions, 'offset' | 'hit' | 'skip'>;

/** Tries a part needs at most before its budget is halved instead (characters per token vary along a page). */
const SCALED_TRIES = 4;

/**
 * `take(budget)`, taken again with fewer tokens until its content is at most `maxChars` long. Each try scales the
 * budget by how far over the last part was, and is at least a token smaller, so parts only shrink. A part of one token
 * longer than `maxChars` throws the 422 a too small budget gets.
 */
function withinChars<T extends { content: string; tokenCount: number }>(
  take: (budget: number) => T | null,
  budget: number,
  options: RenderOptions,
): T | null {
  const { maxChars } = options;
  let part = take(budget);
  for (let tries = 0; maxChars !== null && part !== null && part.content.length > maxChars; tries++) {
    const scaled = Math.floor((part.tokenCount * maxChars) / part.content.length);
    const next = tries < SCALED_TRIES ? Math.min(part.tokenCount - 1, scaled) : Math.floor(part.tokenCount / 2);
    if (next < 1) throw tooSmall('max_chars', maxChars, 'token');
    part = take(next);
  }
  return part;
}

/** A budget that cannot hold the next part of the page; the message names it as its caller does (`max_tokens_each`). */
function tooSmall(field: 'max_tokens' | 'max_chars', budget: number | null, what: 'character' | 'token') {
  return FieldError.of(
    [field],
    (name) => `${name} ${budget} cannot hold the next ${what} of this page: ask for more`,
    'too_small',
  );
}

/** The part of `view` to answer with, and (after a query's part) the ranges its cursor must skip. */
function choosePart(view: ContentView, options: RenderOptions): { part: TrimResult; skip?: Range[] } {
  const { query, maxTokens, maxChars, offset } = options;
  // A cursor's rest is read through view.part, which counts only what it needs.
  if (
    options.skip === undefined &&
    offset === 0 &&
    (maxTokens === null || maxTokens >= view.total) &&
    (maxChars === null || view.whole.length <= maxChars)
  ) {
    return { part: { content: view.whole, tokenCount: view.total, truncated: false, nextOffset: null, outline: [] } };
  }
  // A character budget alone starts from every token and comes down.
  const budget = maxTokens ?? (maxChars === null ? null : view.total);
  if (query !== undefined && budget !== null && options.skip === undefined && offset === 0) {
    const selected = withinChars((room) => view.select(query, room), budget, options);
    if (selected !== null) {
      const more = selected.leftOut > 0;
      const part = { ...selected, truncated: more, nextOffset: more ? 0 : null, outline: more ? selected.outline : [] };
      return { part, skip: selected.shown };
    }
  }
  const part =
    budget === null ? view.part(offset, null) : withinChars((room) => view.part(offset, room), budget, options)!;
  if (query !== undefined && part.outline.length > 1) {
    const scores = scoreUnits(
      part.outline.map((entry) => ({ text: entry.title, headings: [] })),
      query,
    );
    const outline = part.outline
      .map((entry, i) => ({ entry, score: scores[i]! }))
      .sort((a, b) => b.score - a.score)
      .map(({ entry }) => entry);
    return { part: { ...part, outline }, skip: options.skip };
  }
  return { part, skip: options.skip };
}

/** `memos`: the pipeline's restyled copies and document indexes (content-view.ts). */
export function renderResult(entry: CacheHit<StoredPage>, options: RenderOptions, memos: ViewMemos): FetchResult {
  const page = entry.value;
  const pageView = viewContent(page, options.format, options.style, memos);
  const total = pageView.total;
  const { part, skip } = choosePart(options.skip ? pageView.rest(options.skip) : pageView, options);
  // Nothing fits: a cursor to the same place would have a caller following next_cursor loop for ever.
  if (part.truncated && part.content === '') throw tooSmall('max_tokens', options.maxTokens, 'character');
  const result: FetchResult = {
    url: options.requestUrl,
    markdown: part.content,
    metadata: {
      title: page.title,
      description: page.description,
      language: page.language,
      // `?? null`: pages cached before these were read lack them.
      author: page.author ?? null,
      published_at: page.publishedAt ?? null,
      site_name: page.siteName ?? null,
      canonical_url: page.canonicalUrl ?? null,
      image: page.image ?? null,
      url: page.url,
      status_code: page.statusCode,
      content_type: page.contentType,
      token_count: part.tokenCount,
      total_tokens: total,
      truncated: part.truncated,
    },
    outline: part.outline,
    credits: toCredits(fetchMillicredits(page.fetcher, options.hit, page.ocrPages)),
    next_cursor:
      part.nextOffset === null
        ? null
        : encodeCursor({
            key: options.keyHash,
            storedAt: entry.storedAt,
            offset: part.nextOffset,
            format: options.format,
            style: options.style,
            skip,
          }),
    cache: {
      hit: options.hit,
      cached_at: new Date(page.fetchedAt ?? entry.storedAt).toISOString(),
      expires_at: new Date(entry.expiresAt).toISOString(),
      age_seconds: ageSeconds(entry, options.now),
    },
    fetch_info: {
      fetcher_used: page.fetcher,
      document_type: page.documentType ?? declaredType(mimeOf(page.contentType)) ?? 'html',
      fetch_ms: page.fetchMs,
      redirects: page.redirects,
      bytes: page.bytes,
      body_truncated: page.bodyTruncated,
      source_markdown: page.sourceMarkdown ?? false,
      content_hash: page.contentHash ?? hashContent(page.markdown),
    },
  };
  // A copy's change is news only to the request that fetched it.
  if (!options.hit && page.changed !== undefined) {
    result.fetch_info.changed = page.changed;
    const seen = page.lastSeenDifferentAt ?? null;
    result.fetch_info.last_seen_different_at = seen === null ? null : new Date(seen).toISOString();
  }
  if (page.selection) result.fetch_info.selection = page.selection;
  if (page.pageCount !== undefined) result.metadata.page_count = page.pageCount;
  if (page.ocrPages) result.fetch_info.ocr_pages = page.ocrPages;
  if (page.attempts && page.attempts.length > 1) result.fetch_info.attempts = page.attempts;
  if (options.format === 'json') result.document = markdownToDocument(part.content);
  return result;
}
