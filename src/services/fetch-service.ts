// The fetch use case: which way a request is answered, and what those ways share. A request with include or exclude
// is a selection (page-selection.ts); one with a cursor reads on in its cached copy (continuation.ts); a fresh enough
// cached copy answers from the cache (cache-hit.ts); anything else is fetched now (fresh-fetch.ts).
import { brotliDecompressSync } from 'node:zlib';
import { readOrMiss } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import type { Config } from '../config.js';
import type { FetchResult, Format } from '../contract/fetch.js';
import { DEFAULT_STYLE, type MarkdownStyle } from '../extract/formats/link-style.js';
import type { Conversions } from '../fetchers/conversions.js';
import type { Router } from '../fetchers/router.js';
import type { FetcherChoice, FetcherName } from '../fetchers/types.js';
import { countCacheLookup } from '../metrics/registry.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { AnswerMemo } from './answer-memo.js';
import { answerFromCopy } from './cache-hit.js';
import { cacheStatus, deleteCached } from './cached-copies.js';
import type { ViewMemos } from './content-view.js';
import { continueReading } from './continuation.js';
import { createFreshFetch } from './fresh-fetch.js';
import { isStale, needCache, pageCacheKey, parseTargetUrl, readCopy, type PageKeyMemo } from './page-cache.js';
import { checkSelection, fetchSelection } from './page-selection.js';
import { sourceKey, storedHtmlBytes, type StoredHtml } from './page-source.js';
import { renderResult, type RequestShape, type StoredPage } from './render.js';

/** One URL to answer. A 422 names the field of the contract's fetch request it is about (`url`, `max_tokens`…). */
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

/** The memos of recent work the fetch service reads and keeps, owned by the pipeline (pipeline.ts). */
export interface FetchMemos {
  pageKeys: PageKeyMemo;
  answers: AnswerMemo;
  views: ViewMemos;
}

/** `clock`: the caches' clock, for the age of copies (max_age). */
export function createFetchService(deps: {
  config: Config;
  cache: Cache;
  router: Router;
  /** Where a selection is extracted from a page's HTML: an extraction thread (conversions.ts). */
  select: Conversions['select'];
  memos: FetchMemos;
  clock?: Clock;
}) {
  const { cache, memos } = deps;
  const { views } = memos;
  const clock = deps.clock ?? systemClock;
  const fetchFresh = createFreshFetch(deps);
  const selecting = { cache, clock, fetchFresh, select: deps.select, views };

  async function fetchOne(request: FetchOne): Promise<FetchResult> {
    const { key, keyHash } = memos.pageKeys.of(request.url, request.fetcher ?? 'auto');
    const now = clock.now();
    const shape: RequestShape = {
      requestUrl: request.url,
      keyHash,
      maxTokens: request.maxTokens,
      maxChars: request.maxChars ?? null,
      format: request.format,
      // Text has no links or images: the options do not change it, so its cursors ignore them.
      style: request.format === 'text' ? DEFAULT_STYLE : (request.style ?? DEFAULT_STYLE),
      now,
      query: request.query,
    };
    if (request.include?.length || request.exclude?.length)
      return fetchSelection(selecting, request, key, checkSelection(request), shape);
    if (request.cursor !== undefined) {
      const readPage = () => needCache(() => cache.get<StoredPage>(key));
      return continueReading(views, request.cursor, shape, readPage);
    }
    let cached = request.useCache ? await readCopy(cache, key) : null;
    let previous: CacheHit<StoredPage> | null | undefined = request.useCache ? null : undefined;
    if (cached && isStale(cached, request.maxAge, now)) [previous, cached] = [cached, null];
    if (request.useCache) countCacheLookup(cached !== null);
    if (cached) return answerFromCopy(memos, cached, shape);
    const { entry } = await fetchFresh(parseTargetUrl(request.url), key, request, previous);
    return renderResult(entry, { ...shape, offset: 0, hit: false }, views);
  }

  return {
    fetchOne,

    /**
     * Whether `request` would be answered from a cached copy (a cursor's read, or a fresh enough copy of the page), so
     * that a paying caller is held at the cache rate rather than a fetcher's. A guess: the copy may go before the
     * answer is made, and then the router asks `pay` for the fetcher it runs.
     */
    async answersFromCache(request: FetchOne): Promise<boolean> {
      if (request.cursor !== undefined) return true;
      if (!request.useCache) return false;
      const cached = await readCopy(cache, memos.pageKeys.of(request.url, request.fetcher ?? 'auto').key);
      return cached !== null && !isStale(cached, request.maxAge, clock.now());
    },

    /** The cached copy for /estimate: none when the cache cannot be reached, which only makes the estimate a guess. */
    lookupCached: (url: URL): Promise<CacheHit<StoredPage> | null> => readCopy(cache, pageCacheKey(url)),

    /** The HTML a page read through fetchOne came from (a crawl follows its links), or null (a PDF, none kept). */
    async pageHtml(url: string): Promise<string | null> {
      const source = await readOrMiss<StoredHtml>(cache, sourceKey(memos.pageKeys.of(url, 'auto').key));
      return source ? brotliDecompressSync(storedHtmlBytes(source.value)).toString('utf8') : null;
    },

    cacheStatus: (rawUrl: string) => cacheStatus(cache, rawUrl),
    deleteCached: (rawUrl: string) => deleteCached(cache, rawUrl),
  };
}

export type FetchService = ReturnType<typeof createFetchService>;
