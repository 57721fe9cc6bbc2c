// The fetch operations: one URL, its token estimate, and its cached copy; each metered for its caller.
import type { CacheDeleted, CacheStatus, EstimateResult, FetchRequest, FetchResult } from '../contract/fetch.js';
import { AppError } from '../errors.js';
import type { Estimator } from '../services/estimate.js';
import type { FetchService, FieldLocations } from '../services/fetch-service.js';
import type { Caller, MeterFor } from './meter.js';

export function createFetchOperations(deps: { fetchService: FetchService; estimate: Estimator; meterFor: MeterFor }) {
  const { fetchService, estimate, meterFor } = deps;

  return {
    /** `at`: where the caller put the fields, for 422s (GET /r/ takes them from its path and query string). */
    fetchUrl(caller: Caller, input: FetchRequest, at?: FieldLocations): Promise<FetchResult> {
      const request = {
        url: input.url,
        maxTokens: input.max_tokens,
        format: input.format,
        useCache: input.use_cache,
        cursor: input.cursor,
        fetcher: input.fetcher,
        style: { links: input.links, images: input.images },
        maxAge: input.max_age,
        include: input.include,
        exclude: input.exclude,
        query: input.query,
      };
      return meterFor(caller).fetch(
        'fetch',
        input.url,
        input.fetcher,
        (pay) => fetchService.fetchOne({ ...request, pay }, at),
        () => fetchService.answersFromCache(request, at),
      );
    },

    estimate(caller: Caller, url: string): Promise<EstimateResult> {
      return meterFor(caller).estimate(url, () => estimate(url));
    },

    cacheStatus(_caller: Caller, url: string): Promise<CacheStatus> {
      return fetchService.cacheStatus(url);
    },

    /**
     * Evicting a shared copy makes the next caller of that URL pay a full fetch instead of a cache hit, so it takes an
     * account: an anonymous caller could otherwise raise everyone's bills (and load the site) at will.
     */
    deleteCached(caller: Caller, url: string): Promise<CacheDeleted> {
      if (caller.kind === 'anonymous') {
        throw new AppError(
          'invalid_api_key',
          'evicting a cached copy needs an API key in the X-Service-Key header: it changes what ' +
            'every caller of the URL pays; get a key with POST /account/signup',
          {
            headers: { 'WWW-Authenticate': 'ApiKey header="X-Service-Key"' },
          },
        );
      }
      return fetchService.deleteCached(url);
    },
  };
}

export type FetchOperations = ReturnType<typeof createFetchOperations>;
