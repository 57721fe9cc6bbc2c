// The fetch use case: cache lookup, one shared upstream fetch per URL, the router, and rendering per request.
import { readOrMiss, writeOrSkip } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import type { Config } from '../config.js';
import { AppError, ValidationError, failureToError } from '../errors.js';
import { DEFAULT_STYLE, type MarkdownStyle } from '../extract/link-style.js';
import type { Router } from '../fetchers/router.js';
import { FETCHER_NAMES, type FetcherChoice, type FetcherName } from '../fetchers/types.js';
import type { FetchResult, Format } from '../contract/fetch.js';
import { normalizeUrl } from '../net/normalize-url.js';
import { cacheLookups, trackUpstream, upstreamFetches } from '../metrics/registry.js';
import { createLimiter } from '../util/limiter.js';
import { createSingleFlight } from '../util/single-flight.js';
import { createAnswerMemo } from './answer-memo.js';
import { viewContent } from './content-view.js';
import { cursorError, decodeCursor, hashKey } from './cursor.js';
import { renderResult, toStoredPage, type RenderOptions, type StoredPage } from './render.js';

export interface FetchOne {
  url: string;
  maxTokens: number | null;
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
}

/** Where the caller put the URL and the budget, in its own terms, for 422s: a batch's `['body', 'urls', 3]`. */
export interface FieldLocations {
  url: (string | number)[];
  maxTokens: (string | number)[];
}

const FETCH_FIELDS: FieldLocations = { url: ['body', 'url'], maxTokens: ['body', 'max_tokens'] };

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
    'requestUrl' | 'format' | 'style' | 'keyHash' | 'maxTokens' | 'maxTokensAt' | 'offset' | 'hit' | 'query' | 'skip'
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

export function createFetchService(deps: { config: Config; cache: Cache; router: Router }) {
  const { config, cache, router } = deps;
  const inflight = createSingleFlight<CacheHit<StoredPage>>();
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

  async function fetchFresh(url: URL, key: string, request: FetchOne): Promise<CacheHit<StoredPage>> {
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
        const stored = toStoredPage(routed.outcome.page, routed.fetcher, Math.round(performance.now() - started));
        return writeOrSkip(cache, key, stored, config.CACHE_TTL_SECONDS);
      }),
    );
  }

  async function fetchOne(request: FetchOne, at: FieldLocations = FETCH_FIELDS): Promise<FetchResult> {
    const fetcher = request.fetcher ?? 'auto';
    const { key, keyHash } = keysOf(request.url, fetcher, at.url);
    // Text has no links or images: the options do not change it, so its cursors ignore them.
    const style = request.format === 'text' ? DEFAULT_STYLE : (request.style ?? DEFAULT_STYLE);
    const shape = {
      requestUrl: request.url,
      keyHash,
      format: request.format,
      style,
      maxTokensAt: at.maxTokens,
      query: request.query,
    };
    if (request.cursor !== undefined) {
      const cursor = decodeCursor(request.cursor);
      if (cursor.key !== keyHash)
        throw cursorError(
          'Cursor belongs to another URL or fetcher: pass it with the URL (and fetcher) it was returned for',
        );
      if (cursor.format !== request.format)
        throw cursorError(`Cursor was issued for format '${cursor.format}': repeat that format`);
      if (cursor.style.links !== style.links || cursor.style.images !== style.images) {
        throw cursorError(
          `Cursor was issued for links '${cursor.style.links}' and images '${cursor.style.images}': repeat those`,
        );
      }
      const entry = await needCache(() => cache.get<StoredPage>(key));
      if (!entry || entry.storedAt !== cursor.storedAt) {
        throw cursorError(
          'Cursor has expired: the cached copy it points into is gone; fetch the URL again without a cursor',
        );
      }
      const view = viewContent(entry.value, request.format, style);
      const skip = cursor.skip;
      if ((skip && skip.at(-1)![1] > view.body.length) || cursor.offset > (skip ? view.rest(skip) : view).body.length) {
        throw cursorError('Cursor is malformed: pass next_cursor exactly as it was returned');
      }
      return renderResult(entry, { ...shape, maxTokens: request.maxTokens, offset: cursor.offset, hit: true, skip });
    }
    const cached = request.useCache ? await readCache(key) : null;
    if (request.useCache) cacheLookups.inc({ result: cached ? 'hit' : 'miss' });
    if (!cached) {
      const entry = await fetchFresh(parseTargetUrl(request.url, at.url), key, request);
      return renderResult(entry, { ...shape, maxTokens: request.maxTokens, offset: 0, hit: false });
    }
    // A cache hit read from the start may be the whole answer made for this copy before (answer-memo.ts).
    const variant = variantOf(request.url, request.format, style);
    const kept = answers.get(cached, variant, request.maxTokens);
    if (kept !== undefined) return kept;
    return answers.keep(
      cached,
      variant,
      renderResult(cached, { ...shape, maxTokens: request.maxTokens, offset: 0, hit: true }),
    );
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
    const deleted = await needCache(() =>
      Promise.all((['auto', ...FETCHER_NAMES] as const).map((fetcher) => cache.delete(pageCacheKey(url, fetcher)))),
    );
    return { url: rawUrl, deleted: deleted.some(Boolean) };
  }

  return { fetchOne, lookupCached, cacheStatus, deleteCached };
}

export type FetchService = ReturnType<typeof createFetchService>;
