// Shared cache for several API processes: Redis, each entry one key with a native expiry (SET … PX), its value the
// JSON of the whole hit so storedAt and expiresAt travel with it.
import { systemClock, type Clock } from '../util/clock.js';
import { connectRedis } from './redis-connection.js';
import type { Cache, CacheHit } from './types.js';

export function createRedisCache(options: { url: string; keyPrefix?: string; clock?: Clock }): Cache {
  const clock = options.clock ?? systemClock;
  const redis = connectRedis(options.url, { keyPrefix: options.keyPrefix ?? 'fd:cache:' });

  return {
    async get<T>(key: string) {
      const raw = await redis.get(key);
      if (raw === null) return null;
      const hit = JSON.parse(raw) as CacheHit<T>;
      return hit.expiresAt > clock.now() ? hit : null; // PX already expires it; this covers clock skew between hosts
    },
    async set<T>(key: string, value: T, ttlSeconds: number) {
      const storedAt = clock.now();
      const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
      const hit: CacheHit<T> = { value, storedAt, expiresAt: storedAt + ttlMs };
      await redis.set(key, JSON.stringify(hit), 'PX', ttlMs);
      return hit;
    },
    async delete(key: string) {
      const raw = await redis.getdel(key);
      return raw !== null && (JSON.parse(raw) as CacheHit<unknown>).expiresAt > clock.now();
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      // QUIT lets pending replies arrive; when Redis is unreachable it cannot be sent, so drop the connection instead.
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
