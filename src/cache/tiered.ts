// Two levels: a small fast cache in front of a larger persistent one (by default a memory LRU in front of SQLite).
import { systemClock, type Clock } from '../util/clock.js';
import type { Cache, CacheHit } from './types.js';

/**
 * Reads try the front, then the back, refilling the front; writes and deletes go to both. The front holds the back's
 * whole hit as its value, so a refilled entry keeps the back's storedAt and expiresAt, and never outlives it.
 */
export function createTieredCache(front: Cache, back: Cache, clock: Clock = systemClock): Cache {
  const remember = async <T>(key: string, hit: CacheHit<T>) => {
    const ttlSeconds = (hit.expiresAt - clock.now()) / 1000;
    if (ttlSeconds > 0) await front.set(key, hit, ttlSeconds);
  };

  return {
    async get<T>(key: string) {
      const near = await front.get<CacheHit<T>>(key);
      if (near && near.value.expiresAt > clock.now()) return near.value;
      const far = await back.get<T>(key);
      if (far) await remember(key, far);
      return far;
    },
    async set<T>(key: string, value: T, ttlSeconds: number) {
      const hit = await back.set(key, value, ttlSeconds);
      await remember(key, hit);
      return hit;
    },
    async delete(key: string) {
      const [inFront, inBack] = await Promise.all([front.delete(key), back.delete(key)]);
      return inFront || inBack;
    },
    async ping() {
      await Promise.all([front.ping(), back.ping()]);
    },
    async close() {
      await Promise.all([front.close(), back.close()]);
    },
  };
}
