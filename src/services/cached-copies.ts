// A URL's cached copies, as /cache shows and deletes them: the router's copy, each forced fetcher's, the selections
// tied to them and the HTML kept beside them. Both need the cache: an outage is a 503.
import type { Cache } from '../cache/types.js';
import type { CacheDeleted, CacheStatus } from '../contract/fetch.js';
import { FETCHER_NAMES } from '../fetchers/types.js';
import { needCache, pageCacheKey, parseTargetUrl } from './page-cache.js';
import { sourceKey } from './page-source.js';
import type { StoredPage } from './render.js';

export async function cacheStatus(cache: Cache, rawUrl: string): Promise<CacheStatus> {
  const key = pageCacheKey(parseTargetUrl(rawUrl));
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

export async function deleteCached(cache: Cache, rawUrl: string): Promise<CacheDeleted> {
  const url = parseTargetUrl(rawUrl);
  // A selection's copy is tied to its page's copy, so it goes with it; the page's HTML goes too.
  const keys = (['auto', ...FETCHER_NAMES] as const).map((fetcher) => pageCacheKey(url, fetcher));
  const deleted = await needCache(() => Promise.all(keys.map((key) => cache.delete(key))));
  await needCache(() => Promise.all(keys.map((key) => cache.delete(sourceKey(key)))));
  return { url: rawUrl, deleted: deleted.some(Boolean) };
}
