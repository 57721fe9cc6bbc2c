// Reads and writes for callers that can do without the cache: during an outage (Redis down) a read is a miss and a
// write is skipped, so fetching goes on uncached while /ready reports the cache as broken.
import type { Cache, CacheHit } from './types.js';

export async function readOrMiss<T>(cache: Cache, key: string): Promise<CacheHit<T> | null> {
  return cache.get<T>(key).catch(() => null);
}

/** The stored hit, or, when the cache cannot be written, the same hit kept by no one. */
export async function writeOrSkip<T>(cache: Cache, key: string, value: T, ttlSeconds: number): Promise<CacheHit<T>> {
  return cache.set(key, value, ttlSeconds).catch(() => {
    const storedAt = Date.now();
    return { value, storedAt, expiresAt: storedAt + ttlSeconds * 1000 };
  });
}
