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
import { needsBrowser, NO_CALLER_HEADERS } from '../fetchers/router.js';
import type { DocumentRequest, FetcherChoice, FetcherName, PageOptions } from '../fetchers/types.js';
import { createHash } from 'node:crypto';
import { FieldError } from '../errors.js';
import { createScreenshotStore } from './screenshots.js';
import { countCacheLookup } from '../metrics/registry.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { AnswerMemo } from './answer-memo.js';
import { answerFromCopy } from './cache-hit.js';
import { cacheStatus, deleteCached } from './cached-copies.js';
import type { ViewMemos } from './content-view.js';
import { continueReading } from './continuation.js';
import { createFreshFetch } from './fresh-fetch.js';
import { hashKey } from './cursor.js';
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
  /** What the caller asks of the page: waits, actions, its headers, a phone's view, screenshots. */
  page?: PageOptions;
  /** What the caller asks of a document: some of its pages, page marks (PDFs only). */
  document?: DocumentRequest;
  /** Who may read the screenshots the answer links to (operations/meter.ts ownerOf). */
  owner?: string;
}

/**
 * The cache key of a request that asks more of the page than a load: the steps and the view change the content, so
 * they are part of the key; a caller's headers make it private (their hash in the key: only the same credentials
 * reach that copy, and nothing fetched with them is ever where a request without them looks).
 */
function variantKey(key: string, page: PageOptions | undefined): string {
  if (!page) return key;
  const { headers, timeoutMs: _timeout, ...view } = page;
  const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);
  let variant = Object.keys(view).length > 0 ? `${key}#view=${hash(view)}` : key;
  if (headers) variant += `#private=${hash(Object.entries(headers).sort())}`;
  return variant;
}

/**
 * A document read in part or with page marks is another content than the whole one: cached under its own key. Asked
 * of a page that is not a PDF, it changes nothing, but makes a copy of its own all the same (the key is made before
 * the content type is known).
 */
function documentKey(key: string, document: DocumentRequest | undefined): string {
  if (!document?.pages && !document?.pageMarkers) return key;
  const pages = document.pages?.map(({ first, last }) => `${first}-${last}`).join(',') ?? 'all';
  return `${key}#pages=${pages}${document.pageMarkers ? '#marked' : ''}`;
}

/** A copy is read only when it can answer: never for screenshots (each is taken anew) or with credentials. */
const mayReadCopy = (page: PageOptions | undefined) =>
  !page?.headers && !page?.screenshot && !page?.actions?.some((action) => action.type === 'screenshot');

/** A 422 at `fetcher` for a forced fetcher that cannot do what the page fields ask. */
function checkFetcher(fetcher: FetcherChoice | undefined, page: PageOptions | undefined): void {
  if (!page || !fetcher || fetcher === 'auto' || fetcher === 'browser') return;
  if (needsBrowser(page))
    throw FieldError.of(
      ['fetcher'],
      `fetcher ${fetcher} cannot wait, act, render as a phone or take screenshots: leave fetcher at auto or use browser`,
      'value_error',
    );
  if (page.headers && NO_CALLER_HEADERS.has(fetcher))
    throw FieldError.of(
      ['fetcher'],
      `your headers and cookies are never sent to the ${fetcher} provider: leave fetcher at auto, or use html or browser`,
      'value_error',
    );
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
  const screenshots = createScreenshotStore({
    cache,
    ttlSeconds: deps.config.SCREENSHOT_TTL_SECONDS,
    baseUrl: deps.config.PUBLIC_BASE_URL,
  });
  const keysOf = (request: Pick<FetchOne, 'url' | 'fetcher' | 'page' | 'document'>) => {
    const keys = memos.pageKeys.of(request.url, request.fetcher ?? 'auto');
    const key = documentKey(variantKey(keys.key, request.page), request.document);
    return key === keys.key ? keys : { key, keyHash: hashKey(key) };
  };
  const selecting = { cache, clock, fetchFresh, select: deps.select, views };

  async function fetchOne(request: FetchOne): Promise<FetchResult> {
    checkFetcher(request.fetcher, request.page);
    const { key, keyHash } = keysOf(request);
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
    const reads = request.useCache && mayReadCopy(request.page);
    let cached = reads ? await readCopy(cache, key) : null;
    let previous: CacheHit<StoredPage> | null | undefined = reads ? null : undefined;
    if (cached && isStale(cached, request.maxAge, now)) [previous, cached] = [cached, null];
    if (reads) countCacheLookup(cached !== null);
    if (cached) return answerFromCopy(memos, cached, shape);
    const { entry, shots } = await fetchFresh(parseTargetUrl(request.url), key, request, previous);
    const result = renderResult(entry, { ...shape, offset: 0, hit: false }, views);
    if (!shots?.length) return result;
    const kept = await screenshots.keep(request.owner ?? 'local', shots);
    return {
      ...result,
      ...(kept.page ? { screenshot_url: kept.page } : {}),
      ...(kept.steps.length ? { actions: { screenshots: kept.steps } } : {}),
    };
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
      if (!request.useCache || !mayReadCopy(request.page)) return false;
      const cached = await readCopy(cache, keysOf(request).key);
      return cached !== null && !isStale(cached, request.maxAge, clock.now());
    },

    /** The cached copy for /estimate: none when the cache cannot be reached, which only makes the estimate a guess. */
    lookupCached: (url: URL): Promise<CacheHit<StoredPage> | null> => readCopy(cache, pageCacheKey(url)),

    /** The HTML a page read through fetchOne came from (a crawl follows its links), or null (a PDF, none kept). */
    async pageHtml(url: string): Promise<string | null> {
      const source = await readOrMiss<StoredHtml>(cache, sourceKey(memos.pageKeys.of(url, 'auto').key));
      return source ? brotliDecompressSync(storedHtmlBytes(source.value)).toString('utf8') : null;
    },

    /** A screenshot `owner` took (`<id>.<format>`), or null (none, expired, or another caller's). */
    screenshot: (owner: string, file: string) => screenshots.read(owner, file),

    cacheStatus: (rawUrl: string) => cacheStatus(cache, rawUrl),
    deleteCached: (rawUrl: string) => deleteCached(cache, rawUrl),
  };
}

export type FetchService = ReturnType<typeof createFetchService>;
