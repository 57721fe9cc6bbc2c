// In-process cache: an LRU bounded by entry count, each entry with its own lifetime. Values are kept by reference,
// so callers must treat what they store and get as immutable.
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../util/clock.js';
import type { Cache, CacheHit } from './types.js';

export function createMemoryCache(options: { maxEntries: number; clock?: Clock }): Cache {
  const clock = options.clock ?? systemClock;
  // lru-cache refuses a size of 0; zero entries means a cache that keeps nothing.
  const entries = options.maxEntries > 0 ? new LRUCache<string, CacheHit<unknown>>({ max: options.maxEntries }) : null;

  const live = (key: string): CacheHit<unknown> | null => {
    const hit = entries?.get(key);
    if (!hit) return null;
    // Expiry is checked against the entry's own expiresAt, so what get returns never contradicts it.
    if (hit.expiresAt <= clock.now()) {
      entries!.delete(key);
      return null;
    }
    return hit;
  };

  return {
    async get<T>(key: string) {
      return live(key) as CacheHit<T> | null;
    },
    async set<T>(key: string, value: T, ttlSeconds: number) {
      const storedAt = clock.now();
      const hit: CacheHit<T> = { value, storedAt, expiresAt: storedAt + Math.round(ttlSeconds * 1000) };
      entries?.set(key, hit);
      return hit;
    },
    async delete(key: string) {
      return live(key) !== null && entries!.delete(key);
    },
    async ping() {},
    async close() {
      entries?.clear();
    },
  };
}
