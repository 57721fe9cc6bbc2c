// The fetch operations: one URL, its token estimate, and its cached copy; each metered for its caller.
import type { CacheDeleted, CacheStatus, EstimateResult, FetchRequest, FetchResult } from '../contract/fetch.js';
import { AppError, locating, type Locate } from '../errors.js';
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import { checkDocument } from '../contract/document.js';
import { checkPageFields } from '../services/page-selection.js';
import { needsBrowser } from '../fetchers/router.js';
import { isLoopback, ownerOf, type Caller, type MeterFor } from './meter.js';

const KEY_HEADERS = { 'WWW-Authenticate': 'ApiKey header="X-Service-Key"' };

/** Whether a result is handed to many requests (a cached page read whole): a route may keep its JSON as long. */
export { isSharedAnswer } from '../services/answer-memo.js';

export function createFetchOperations(deps: { fetchService: FetchService; estimate: Estimator; meterFor: MeterFor }) {
  const { fetchService, estimate, meterFor } = deps;

  return {
    /**
     * `locate`, here and in every operation: where the caller put the fields, for the 422s that name them (POST
     * /fetch's body; GET /r/'s path and query string).
     */
    fetchUrl(caller: Caller, input: FetchRequest, locate: Locate): Promise<FetchResult> {
      return locating(locate, async () => {
        const page = checkPageFields(input);
        const document = checkDocument(input);
        const request = {
          url: input.url,
          maxTokens: input.max_tokens,
          maxChars: input.max_chars,
          format: input.format,
          useCache: input.use_cache,
          cursor: input.cursor,
          fetcher: input.fetcher,
          style: { links: input.links, images: input.images },
          maxAge: input.max_age,
          include: input.include,
          exclude: input.exclude,
          query: input.query,
          page,
          document,
          owner: ownerOf(caller),
        };
        // What only a browser can do is held at the browser's price from the start.
        return meterFor(caller).fetch(
          'fetch',
          input.url,
          needsBrowser(page) && input.fetcher === 'auto' ? 'browser' : input.fetcher,
          (pay) => fetchService.fetchOne({ ...request, pay }),
          () => fetchService.answersFromCache(request),
        );
      });
    },

    /** A screenshot the caller took (`<id>.<format>`); a 404 for any other, expired or someone else's. */
    async screenshot(caller: Caller, file: string): Promise<{ type: string; bytes: Buffer }> {
      const shot = await fetchService.screenshot(ownerOf(caller), file);
      if (!shot) throw new AppError('not_found', 'no such screenshot: it expired, or it was taken by another caller');
      return shot;
    },

    estimate(caller: Caller, url: string, locate: Locate): Promise<EstimateResult> {
      return locating(locate, () => meterFor(caller).estimate(url, () => estimate(url)));
    },

    /**
     * The cache is shared, so whether a URL is cached and since when says that someone fetched it and when: an
     * anonymous caller could watch what the service's other users read. Its state is told to callers with a key (they
     * may read any cached copy, and are known), as Firecrawl tells it only to keyed calls and Jina's keyless reader
     * tells none, and to callers on this machine (its operator); anonymous callers from elsewhere get a 401.
     */
    cacheStatus(caller: Caller, url: string, locate: Locate): Promise<CacheStatus> {
      if (caller.kind === 'anonymous' && !isLoopback(caller.ip)) {
        throw new AppError(
          'invalid_api_key',
          'the cache status of a URL needs an API key in the X-Service-Key header: it tells whether others fetched ' +
            'the URL and when; get a key with POST /account/signup',
          { headers: KEY_HEADERS },
        );
      }
      return locating(locate, () => fetchService.cacheStatus(url));
    },

    /**
     * Evicting a shared copy makes the next caller of that URL pay a full fetch instead of a cache hit, so it takes an
     * account: an anonymous caller could otherwise raise everyone's bills (and load the site) at will.
     */
    deleteCached(caller: Caller, url: string, locate: Locate): Promise<CacheDeleted> {
      if (caller.kind === 'anonymous') {
        throw new AppError(
          'invalid_api_key',
          'evicting a cached copy needs an API key in the X-Service-Key header: it changes what ' +
            'every caller of the URL pays; get a key with POST /account/signup',
          { headers: KEY_HEADERS },
        );
      }
      return locating(locate, () => fetchService.deleteCached(url));
    },
  };
}

export type FetchOperations = ReturnType<typeof createFetchOperations>;
