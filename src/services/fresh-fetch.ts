// A page fetched now: one upstream fetch per key at a time (single flight) within the global limit on upstream
// fetches, through the router; its copy is cached, compared with the one it replaces, and its HTML kept beside it.
import { writeOrSkip } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import type { Config } from '../config.js';
import { failureToError } from '../errors.js';
import type { Router } from '../fetchers/router.js';
import type { DocumentRequest, FetcherChoice, FetcherName, PageOptions, Shot } from '../fetchers/types.js';
import { trackUpstream, upstreamFetches } from '../metrics/registry.js';
import { createLimiter } from '../util/limiter.js';
import { createSingleFlight } from '../util/single-flight.js';
import { readCopy } from './page-cache.js';
import { sourceKey, storeHtml } from './page-source.js';
import { compareCopies, toStoredPage, type StoredPage } from './render.js';

/** A page fetched now: its cached copy, the HTML it came from (when HTML; compressed) and the copy it replaced. */
export interface Fresh {
  entry: CacheHit<StoredPage>;
  htmlBrotli: Uint8Array | undefined;
  previous: CacheHit<StoredPage> | null;
  /** Screenshots the request asked for: handed to its callers, never cached. */
  shots?: Shot[];
}

/** What the router is told: a fetcher the caller forces, and how it pays for a dearer one (router.ts). */
export interface Upstream {
  fetcher?: FetcherChoice;
  pay?: (fetcher: FetcherName) => Promise<boolean>;
  /** What the caller asks of the page (waits, actions, its headers…); part of the cache key (fetch-service.ts). */
  page?: PageOptions;
  /** What the caller asks of a document (pages, page marks); part of the cache key too. */
  document?: DocumentRequest;
}

export function createFreshFetch(deps: {
  config: Pick<Config, 'FETCH_CONCURRENCY' | 'CACHE_TTL_SECONDS'>;
  cache: Cache;
  router: Router;
}) {
  const { config, cache, router } = deps;
  const inflight = createSingleFlight<Fresh>();
  const limiter = createLimiter(config.FETCH_CONCURRENCY);
  trackUpstream(limiter);

  /**
   * `previous`: the copy this fetch replaces, when the caller read it (null: it looked and found none; left out: it
   * did not look, and the fetch does). The page's HTML is kept under its own key, so selections are made from it.
   */
  return function fetchFresh(
    url: URL,
    key: string,
    upstream: Upstream,
    previous?: CacheHit<StoredPage> | null,
  ): Promise<Fresh> {
    // Callers of one URL at once share the first one's fetch (and its `pay`): a rare joiner may get a dearer fetcher
    // than it reserved for, and settling takes what it has left (credits.ts) rather than overdraw.
    return inflight.run(key, () =>
      limiter.run(async () => {
        const started = performance.now();
        const { fetcher, pay, page, document } = upstream;
        const signal = page?.timeoutMs === undefined ? undefined : AbortSignal.timeout(page.timeoutMs);
        const routed = await router.fetch(url, { fetcher, pay, page, document, signal });
        if (!routed.outcome.ok && signal?.aborted) {
          const { failure } = routed.outcome;
          // A timeout of the fetcher's own says what was still awaited (a wait_for selector): kept after ours.
          const awaited = failure.code === 'upstream_timeout' ? `: ${failure.detail}` : '';
          routed.outcome.failure = {
            ...failure,
            code: 'upstream_timeout',
            detail: `the fetch did not finish within its timeout of ${page?.timeoutMs} ms${awaited}`,
            retryable: true,
          };
        }
        upstreamFetches.inc({
          fetcher: routed.fetcher,
          outcome: routed.outcome.ok ? 'ok' : routed.outcome.failure.code,
        });
        if (!routed.outcome.ok) throw failureToError(routed.outcome.failure);
        const { htmlBrotli, shots } = routed.outcome.page;
        const stored = toStoredPage(routed.outcome.page, routed.fetcher, Math.round(performance.now() - started));
        stored.keptHtml = htmlBrotli !== undefined;
        const before = previous === undefined ? await readCopy(cache, key) : previous;
        if (before) Object.assign(stored, compareCopies(stored, before));
        const entry = await writeOrSkip(cache, key, stored, config.CACHE_TTL_SECONDS);
        if (htmlBrotli !== undefined) {
          await writeOrSkip(cache, sourceKey(key), storeHtml(htmlBrotli, entry.storedAt), config.CACHE_TTL_SECONDS);
        }
        return { entry, htmlBrotli, previous: before, shots };
      }),
    );
  };
}

export type FetchFresh = ReturnType<typeof createFreshFetch>;
