// Rate-limit counters in Redis, shared by every process: one INCR and, on a window's first hit, its expiry, atomically.
import { connectRedis } from '../cache/redis-connection.js';
import { decide, type RateLimiter } from './types.js';

const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

const PEEK = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}`;

export function createRedisRateLimiter(options: {
  url: string;
  prefix?: string;
  onError?: (error: unknown) => void;
}): RateLimiter {
  const prefix = options.prefix ?? 'fetchdown:ratelimit:';
  const redis = connectRedis(options.url);
  return {
    kind: 'redis',
    async hit(key, limit, windowSeconds) {
      try {
        const [count, ttl] = (await redis.eval(HIT, 1, prefix + key, String(windowSeconds * 1000))) as [number, number];
        return decide(count, limit, ttl);
      } catch (error) {
        // Fail open: an unreachable Redis must not take the API down; /ready reports it through the cache check.
        options.onError?.(error);
        return decide(0, limit, windowSeconds * 1000);
      }
    },
    async peek(key, limit, windowSeconds) {
      try {
        const [count, ttl] = (await redis.eval(PEEK, 1, prefix + key)) as [number, number];
        return decide(count + 1, limit, ttl > 0 ? ttl : windowSeconds * 1000);
      } catch (error) {
        options.onError?.(error);
        return decide(0, limit, windowSeconds * 1000);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
