// The fetch use case: cache lookup, one shared upstream fetch per URL, the router, and rendering per request.
import { readOrMiss, writeOrSkip } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import type { Config } from '../config.js';
import { AppError, ValidationError, failureToError, type ValidationIssue } from '../errors.js';
import { selectorProblem, type Selection } from '../extract/selection.js';
import { systemClock, type Clock } from '../util/clock.js';
import { DEFAULT_STYLE, type MarkdownStyle } from '../extract/formats/link-style.js';
import type { Conversions } from '../fetchers/conversions.js';
import type { Router } from '../fetchers/router.js';
import { FETCHER_NAMES, type FetcherChoice, type FetcherName } from '../fetchers/types.js';
import type { FetchResult, Format } from '../contract/fetch.js';
import { normalizeUrl } from '../net/normalize-url.js';
import { countCacheLookup, trackUpstream, upstreamFetches } from '../metrics/registry.js';
import { createLimiter } from '../util/limiter.js';
import { createSingleFlight } from '../util/single-flight.js';
import { createAnswerMemo } from './answer-memo.js';
import { sourceKey, storedHtmlBytes, storeHtml, type StoredHtml } from './page-source.js';
import { viewContent } from './content-view.js';
import { cursorError, decodeCursor, hashKey } from './cursor.js';
import {
  ageSeconds,
  compareCopies,
  hashContent,
  renderResult,
  toStoredPage,
  type RenderOptions,
  type StoredPage,
} from './render.js';

export interface FetchOne {
  url: string;
  maxTokens: number | null;
  /** The most characters of content, besides the tokens (render.ts); none when left out. */
  maxChars?: number | null;
  format: Format;
  useCache: boolean;
  cursor?: string;
  /** A fetcher the caller forces; `auto` (the default) lets the router choose. */
  fetcher?: FetcherChoice;
  /** How links and images are written; inline links and images kept when left out. */
  style?: MarkdownStyle;
  /** With maxTokens: answer with the blocks that best match it (render.ts). */
  query?: string;
  /** For callers who pay by the fetcher: asked before the router runs each one (router.ts). */
  pay?: (fetcher: FetcherName) => Promise<boolean>;
  /** Seconds: a cached copy older than this is fetched again; 0 always fetches. */
  maxAge?: number;
  /** CSS selectors: the part of the page extracted from its cached HTML (selection.ts). */
  include?: readonly string[];
  exclude?: readonly string[];
}

/** Where the caller put the URL and the budget, in its own terms, for 422s: a batch's `['body', 'urls', 3]`. */
export interface FieldLocations {
  url: (string | number)[];
  maxTokens: (string | number)[];
  /** ['body', 'max_chars'] unless said. */
  maxChars?: (string | number)[];
  /** Where `include` and `exclude` are: ['body'] unless said (GET /r/: ['query']). */
  fields?: (string | number)[];
}

const FETCH_FIELDS: FieldLocations = { url: ['body', 'url'], maxTokens: ['body', 'max_tokens'] };

/** A page fetched now: its cached copy, the HTML it came from (when HTML; compressed) and the copy it replaced. */
interface Fresh {
  entry: CacheHit<StoredPage>;
  htmlBrotli: Uint8Array | undefined;
  previous: CacheHit<StoredPage> | null;
}

const selectionKey = (base: string, pageStoredAt: number) => `${base}@${pageStoredAt}`;

/** Whether a copy is older than the caller's max_age allows (0: every copy is). */
function isStale(entry: CacheHit<StoredPage>, maxAge: number | undefined, now: number): boolean {
  if (maxAge === undefined) return false;
  return maxAge === 0 || now - (entry.value.fetchedAt ?? entry.storedAt) > maxAge * 1000;
}

/**
 * The request's selectors, checked by the engine that will apply them: 422 naming each one that cannot be used, at
 * `parent` (['body'], ['query']) + field + index. Sorted, so the same set in any order is one cached selection.
 */
export function checkSelection(
  request: { include?: readonly string[]; exclude?: readonly string[] },
  parent: (string | number)[] = ['body'],
): Selection {
  const issues: ValidationIssue[] = [];
  const selection = { include: [...(request.include ?? [])].sort(), exclude: [...(request.exclude ?? [])].sort() };
  for (const field of ['include', 'exclude'] as const) {
    (request[field] ?? []).forEach((selector, index) => {
      const problem = selectorProblem(selector);
      if (problem !== null)
        issues.push({
          loc: [...parent, field, index],
          msg: `Invalid CSS selector ${JSON.stringify(selector)}: ${problem}`,
          type: 'selector_invalid',
        });
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return selection;
}

export interface CacheStatus {
  url: string;
  cached: boolean;
  cached_at: string | null;
  expires_at: string | null;
  fetcher_used: string | null;
  token_count: number | null;
}

/**
 * What a kept whole answer (answer-memo.ts) looks like besides the copy it came from: every render option but the
 * budget and start (a kept answer is whole) and the key hash (the copy's). A string, as it is looked up per request.
 */
function variantOf(requestUrl: string, format: Format, style: MarkdownStyle): string {
  return `${format} ${style.links} ${style.images} ${requestUrl}`;
}
// A render option or style field added later must go into variantOf, or kept answers would ignore it: until it does,
// these do not compile.
const _renderOptionsInVariant: Record<
  Exclude<
    keyof RenderOptions,
    // A query shapes only trimmed answers (never kept) and a cursor's skip only cursor reads (never kept).
    | 'requestUrl'
    | 'format'
    | 'style'
    | 'keyHash'
    | 'maxTokens'
    | 'maxTokensAt'
    | 'maxChars'
    | 'maxCharsAt'
    | 'offset'
    | 'hit'
    | 'now'
    | 'query'
    | 'skip'
  >,
  never
> = {};
const _styleFieldsInVariant: Record<Exclude<keyof MarkdownStyle, 'links' | 'images'>, never> = {};

/** Content extraction version: bump when extraction changes so old cached renderings are not served. */
const EXTRACTION_VERSION = 3;

/** Parses a caller's URL, answering 422 at `loc` when it is not an absolute http(s) URL. */
export function parseTargetUrl(raw: string, loc: (string | number)[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ValidationError.single(loc, 'Input should be a valid URL', 'url_parsing');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ValidationError.single(loc, "URL scheme should be 'http' or 'https'", 'url_scheme');
  }
  return url;
}

/** A forced fetcher gets its own entry: its content differs from the router's choice and must not stand in for it. */
export function pageCacheKey(url: URL, fetcher: FetcherChoice = 'auto'): string {
  return `page:v${EXTRACTION_VERSION}:${fetcher === 'auto' ? '' : `fetcher=${fetcher}:`}${normalizeUrl(url)}`;
}

/** `clock`: the caches' clock, for the age of copies (max_age). */
export function createFetchService(deps: {
  config: Config;
  cache: Cache;
  router: Router;
  /** Where a selection is extracted from a page's HTML: an extraction thread (conversions.ts). */
  select: Conversions['select'];
  clock?: Clock;
}) {
  const { config, cache, router } = deps;
  const clock = deps.clock ?? systemClock;
  const inflight = createSingleFlight<Fresh>();
  const limiter = createLimiter(config.FETCH_CONCURRENCY);
  trackUpstream(limiter);
  const answers = createAnswerMemo();
  // Parsing, normalising and hashing a URL cost more than the rest of a cache hit, so the keys of recent URLs are kept.
  const keysByUrl = new Map<string, { key: string; keyHash: string }>();

  /** The cache key of a caller's URL and its hash; 422 at `loc` for a URL that is not absolute http(s). */
  function keysOf(raw: string, fetcher: FetcherChoice, loc: (string | number)[]): { key: string; keyHash: string } {
    const memoKey = fetcher === 'auto' ? raw : `${fetcher} ${raw}`;
    let keys = keysByUrl.get(memoKey);
    if (keys === undefined) {
      const key = pageCacheKey(parseTargetUrl(raw, loc), fetcher);
      keys = { key, keyHash: hashKey(key) };
      if (keysByUrl.size >= 1024) keysByUrl.clear();
      keysByUrl.set(memoKey, keys);
    }
    return keys;
  }

  // A cache outage must not stop fetching (tolerant.ts); what needs a cached copy, cursors and /cache, answers 503.
  const readCache = (key: string) => readOrMiss<StoredPage>(cache, key);

  async function needCache<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch {
      throw new AppError('cache_unavailable', 'the cache cannot be reached right now', {
        retryHint: 'retry in a minute; fetches without a cursor still work',
      });
    }
  }

  /**
   * `previous`: the copy this fetch replaces, when the caller read it (null: it looked and found none; left out: it
   * did not look, and the fetch does). The page's HTML is kept under its own key, so selections are made from it.
   */
  async function fetchFresh(
    url: URL,
    key: string,
    request: FetchOne,
    previous?: CacheHit<StoredPage> | null,
  ): Promise<Fresh> {
    // Callers of one URL at once share the first one's fetch (and its `pay`): a rare joiner may get a dearer fetcher
    // than it reserved for, and settling takes what it has left (credits.ts) rather than overdraw.
    return inflight.run(key, () =>
      limiter.run(async () => {
        const started = performance.now();
        const routed = await router.fetch(url, { fetcher: request.fetcher, pay: request.pay });
        upstreamFetches.inc({
          fetcher: routed.fetcher,
          outcome: routed.outcome.ok ? 'ok' : routed.outcome.failure.code,
        });
        if (!routed.outcome.ok) throw failureToError(routed.outcome.failure);
        const { htmlBrotli } = routed.outcome.page;
        const stored = toStoredPage(routed.outcome.page, routed.fetcher, Math.round(performance.now() - started));
        stored.keptHtml = htmlBrotli !== undefined;
        const before = previous === undefined ? await readCache(key) : previous;
        if (before) Object.assign(stored, compareCopies(stored, before));
        const entry = await writeOrSkip(cache, key, stored, config.CACHE_TTL_SECONDS);
        if (htmlBrotli !== undefined) {
          await writeOrSkip(cache, sourceKey(key), storeHtml(htmlBrotli, entry.storedAt), config.CACHE_TTL_SECONDS);
        }
        return { entry, htmlBrotli, previous: before };
      }),
    );
  }

  /** A cursor's checks against the request it came with; its offset and copy are checked by the caller. */
  function readCursor(raw: string, keyHash: string, format: Format, style: MarkdownStyle) {
    const cursor = decodeCursor(raw);
    if (cursor.key !== keyHash)
      throw cursorError(
        'Cursor belongs to another URL, fetcher or selection: pass it with the URL (and fetcher, include and ' +
          'exclude) it was returned for',
      );
    if (cursor.format !== format)
      throw cursorError(`Cursor was issued for format '${cursor.format}': repeat that format`);
    if (cursor.style.links !== style.links || cursor.style.images !== style.images) {
      throw cursorError(
        `Cursor was issued for links '${cursor.style.links}' and images '${cursor.style.images}': repeat those`,
      );
    }
    return cursor;
  }

  function cursorExpired(): ValidationError {
    return cursorError(
      'Cursor has expired: the cached copy it points into is gone; fetch the URL again without a cursor',
    );
  }

  /**
   * A request with include or exclude: made from the page's cached HTML (fetched when there is no fresh enough copy)
   * and cached as a copy of its own, tied to the page copy it came from, so it lives and goes with that copy.
   */
  async function fetchSelection(
    request: FetchOne,
    at: FieldLocations,
    key: string,
    selection: Selection,
    shape: Omit<RenderOptions, 'keyHash' | 'maxTokens' | 'offset' | 'hit'>,
  ): Promise<FetchResult> {
    const base = `sel:${hashKey(JSON.stringify(selection))}:${key}`;
    const keyHash = hashKey(base);
    const render = (entry: CacheHit<StoredPage>, hit: boolean, offset = 0) =>
      renderResult(entry, { ...shape, keyHash, maxTokens: request.maxTokens, offset, hit });
    if (request.cursor !== undefined) {
      const cursor = readCursor(request.cursor, keyHash, request.format, shape.style);
      const page = await needCache(() => cache.get<StoredPage>(key));
      const entry = page && (await needCache(() => cache.get<StoredPage>(selectionKey(base, page.storedAt))));
      if (!entry || entry.storedAt !== cursor.storedAt) throw cursorExpired();
      if (cursor.offset > viewContent(entry.value, request.format, shape.style).body.length) {
        throw cursorError('Cursor is malformed: pass next_cursor exactly as it was returned');
      }
      return render(entry, true, cursor.offset);
    }
    let page = request.useCache ? await readCache(key) : null;
    let previousPage: CacheHit<StoredPage> | null | undefined = request.useCache ? null : undefined;
    if (page && isStale(page, request.maxAge, shape.now)) [previousPage, page] = [page, null];
    let fresh: Fresh | null = null;
    if (page) {
      const kept = await readCache(selectionKey(base, page.storedAt));
      if (kept) return render(kept, true);
      // Copies cached before HTML was kept do not say (undefined): like one whose HTML went first (an LRU evicts them
      // apart), the page is fetched again, once.
      const mayHaveHtml = page.value.keptHtml !== false;
      const source = mayHaveHtml ? await readOrMiss<StoredHtml>(cache, sourceKey(key)) : null;
      if (mayHaveHtml && source?.value.pageStoredAt !== page.storedAt)
        fresh = await fetchFresh(parseTargetUrl(request.url, at.url), key, request, page);
      else if (source) fresh = { entry: page, htmlBrotli: storedHtmlBytes(source.value), previous: null };
    } else fresh = await fetchFresh(parseTargetUrl(request.url, at.url), key, request, previousPage);
    const copy = fresh?.entry ?? page!;
    const hit = fresh === null || fresh.entry === page;
    const made = await selectFrom(copy, fresh?.htmlBrotli, selection);
    const replaced = fresh && fresh.entry !== page ? fresh.previous : null;
    const before = replaced && (await readCache(selectionKey(base, replaced.storedAt)));
    if (before) Object.assign(made, compareCopies(made, before));
    const ttlSeconds = (copy.expiresAt - clock.now()) / 1000;
    const entry =
      ttlSeconds > 0
        ? await writeOrSkip(cache, selectionKey(base, copy.storedAt), made, ttlSeconds)
        : { value: made, storedAt: clock.now(), expiresAt: copy.expiresAt };
    return render(entry, hit);
  }

  /** The selection's copy of a page: extracted from its HTML, or the page whole when it has none (PDF, Markdown). */
  async function selectFrom(
    page: CacheHit<StoredPage>,
    htmlBrotli: Uint8Array | undefined,
    selection: Selection,
  ): Promise<StoredPage> {
    const { changed: _c, lastSeenDifferentAt: _l, keptHtml: _k, ...rest } = page.value;
    const fetchedAt = page.value.fetchedAt ?? page.storedAt;
    if (htmlBrotli === undefined)
      return { ...rest, fetchedAt, selection: { applied: false, included: null, excluded: null } };
    const selected = await deps.select(htmlBrotli, page.value.url, selection);
    if (!selected.ok) throw failureToError(selected.failure);
    const { applied, markdown, text, included, excluded, tokens } = selected.content;
    return {
      ...rest,
      markdown,
      text,
      tokens,
      contentHash: hashContent(markdown),
      fetchedAt,
      selection: { applied, included, excluded },
    };
  }

  async function fetchOne(request: FetchOne, at: FieldLocations = FETCH_FIELDS): Promise<FetchResult> {
    const fetcher = request.fetcher ?? 'auto';
    const { key, keyHash } = keysOf(request.url, fetcher, at.url);
    // Text has no links or images: the options do not change it, so its cursors ignore them.
    const style = request.format === 'text' ? DEFAULT_STYLE : (request.style ?? DEFAULT_STYLE);
    const now = clock.now();
    const shape = {
      requestUrl: request.url,
      keyHash,
      format: request.format,
      style,
      maxTokensAt: at.maxTokens,
      maxChars: request.maxChars ?? null,
      maxCharsAt: at.maxChars ?? ['body', 'max_chars'],
      now,
      query: request.query,
    };
    if (request.include?.length || request.exclude?.length)
      return fetchSelection(request, at, key, checkSelection(request, at.fields), shape);
    if (request.cursor !== undefined) {
      const cursor = readCursor(request.cursor, keyHash, request.format, style);
      const entry = await needCache(() => cache.get<StoredPage>(key));
      if (!entry || entry.storedAt !== cursor.storedAt) throw cursorExpired();
      const view = viewContent(entry.value, request.format, style);
      const skip = cursor.skip;
      if ((skip && skip.at(-1)![1] > view.body.length) || cursor.offset > (skip ? view.rest(skip) : view).body.length) {
        throw cursorError('Cursor is malformed: pass next_cursor exactly as it was returned');
      }
      return renderResult(entry, { ...shape, maxTokens: request.maxTokens, offset: cursor.offset, hit: true, skip });
    }
    let cached = request.useCache ? await readCache(key) : null;
    let previous: CacheHit<StoredPage> | null | undefined = request.useCache ? null : undefined;
    if (cached && request.maxAge !== undefined && isStale(cached, request.maxAge, now))
      [previous, cached] = [cached, null];
    if (request.useCache) countCacheLookup(cached !== null);
    if (!cached) {
      const { entry } = await fetchFresh(parseTargetUrl(request.url, at.url), key, request, previous);
      return renderResult(entry, { ...shape, maxTokens: request.maxTokens, offset: 0, hit: false });
    }
    // A cache hit read from the start may be the whole answer made for this copy before (answer-memo.ts), within
    // the same second of the copy's age.
    const variant = variantOf(request.url, request.format, style);
    const kept = answers.get(cached, variant, request.maxTokens, ageSeconds(cached, now), request.maxChars ?? null);
    if (kept !== undefined) return kept;
    return answers.keep(
      cached,
      variant,
      renderResult(cached, { ...shape, maxTokens: request.maxTokens, offset: 0, hit: true }),
    );
  }

  /**
   * Whether `request` would be answered from a cached copy (a cursor's read, or a fresh enough copy of the page), so
   * that a paying caller is held at the cache rate rather than a fetcher's. A guess: the copy may go before the
   * answer is made, and then the router asks `pay` for the fetcher it runs.
   */
  async function answersFromCache(request: FetchOne, at: FieldLocations = FETCH_FIELDS): Promise<boolean> {
    if (request.cursor !== undefined) return true;
    if (!request.useCache) return false;
    const cached = await readCache(keysOf(request.url, request.fetcher ?? 'auto', at.url).key);
    return cached !== null && !isStale(cached, request.maxAge, clock.now());
  }

  /** The cached copy for /estimate: none when the cache cannot be reached, which only makes the estimate a guess. */
  async function lookupCached(url: URL): Promise<CacheHit<StoredPage> | null> {
    return readCache(pageCacheKey(url));
  }

  async function cacheStatus(rawUrl: string): Promise<CacheStatus> {
    const key = pageCacheKey(parseTargetUrl(rawUrl, ['query', 'url']));
    const entry = await needCache(() => cache.get<StoredPage>(key));
    return {
      url: rawUrl,
      cached: entry !== null,
      cached_at: entry ? new Date(entry.storedAt).toISOString() : null,
      expires_at: entry ? new Date(entry.expiresAt).toISOString() : null,
      fetcher_used: entry?.value.fetcher ?? null,
      token_count: entry?.value.tokens.markdown ?? null,
    };
  }

  async function deleteCached(rawUrl: string): Promise<{ url: string; deleted: boolean }> {
    const url = parseTargetUrl(rawUrl, ['query', 'url']);
    // A selection's copy is tied to its page's copy, so it goes with it; the page's HTML goes too.
    const keys = (['auto', ...FETCHER_NAMES] as const).map((fetcher) => pageCacheKey(url, fetcher));
    const deleted = await needCache(() => Promise.all(keys.map((key) => cache.delete(key))));
    await needCache(() => Promise.all(keys.map((key) => cache.delete(sourceKey(key)))));
    return { url: rawUrl, deleted: deleted.some(Boolean) };
  }

  return { fetchOne, answersFromCache, lookupCached, cacheStatus, deleteCached };
}

export type FetchService = ReturnType<typeof createFetchService>;
