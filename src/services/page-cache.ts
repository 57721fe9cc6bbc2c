// Where a page's copies are kept in the cache: the key of a caller's URL (normalised, with the extraction version),
// the copy's age against the caller's max_age, and reading it, tolerant of a cache outage or needing the cache.
import { readOrMiss } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import { AppError, FieldError } from '../errors.js';
import type { FetcherChoice } from '../fetchers/types.js';
import { normalizeUrl } from '../net/normalize-url.js';
import { hashKey } from './cursor.js';
import type { StoredPage } from './render.js';

/** Content extraction version: bump when extraction changes so old cached renderings are not served. */
const EXTRACTION_VERSION = 3;

/** Parses a caller's URL: a 422 at its `url` field when it is not an absolute http(s) URL. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw FieldError.of(['url'], 'Input should be a valid URL', 'url_parsing');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw FieldError.of(['url'], "URL scheme should be 'http' or 'https'", 'url_scheme');
  }
  return url;
}

/** A forced fetcher gets its own entry: its content differs from the router's choice and must not stand in for it. */
export function pageCacheKey(url: URL, fetcher: FetcherChoice = 'auto'): string {
  return `page:v${EXTRACTION_VERSION}:${fetcher === 'auto' ? '' : `fetcher=${fetcher}:`}${normalizeUrl(url)}`;
}

export interface PageKeys {
  key: string;
  /** The key's hash, which cursors carry. */
  keyHash: string;
}

/**
 * The cache keys of recent URLs as callers wrote them: parsing, normalising and hashing a URL cost more than the rest
 * of a cache hit. Owned by the pipeline (pipeline.ts).
 */
export function createPageKeyMemo() {
  const byUrl = new Map<string, PageKeys>();
  return {
    /** The cache key of a caller's URL and its hash; a 422 at `url` for a URL that is not absolute http(s). */
    of(raw: string, fetcher: FetcherChoice): PageKeys {
      const memoKey = fetcher === 'auto' ? raw : `${fetcher} ${raw}`;
      let keys = byUrl.get(memoKey);
      if (keys === undefined) {
        const key = pageCacheKey(parseTargetUrl(raw), fetcher);
        keys = { key, keyHash: hashKey(key) };
        if (byUrl.size >= 1024) byUrl.clear();
        byUrl.set(memoKey, keys);
      }
      return keys;
    },
  };
}

export type PageKeyMemo = ReturnType<typeof createPageKeyMemo>;

/** Whether a copy is older than the caller's max_age allows (0: every copy is). */
export function isStale(entry: CacheHit<StoredPage>, maxAge: number | undefined, now: number): boolean {
  if (maxAge === undefined) return false;
  return maxAge === 0 || now - (entry.value.fetchedAt ?? entry.storedAt) > maxAge * 1000;
}

/** A cache outage must not stop fetching (tolerant.ts): a copy that cannot be read is a miss. */
export const readCopy = (cache: Cache, key: string) => readOrMiss<StoredPage>(cache, key);

/** What needs a cached copy (cursors, /cache) answers 503 when the cache cannot be reached. */
export async function needCache<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch {
    throw new AppError('cache_unavailable', 'the cache cannot be reached right now', {
      retryHint: 'retry in a minute; fetches without a cursor still work',
    });
  }
}
