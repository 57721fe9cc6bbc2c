// Picks the rate limiter: Redis when CACHE_URL is Redis (so every process shares the counts), memory otherwise.
import type { Config } from '../config.js';
import { createMemoryRateLimiter } from './memory.js';
import { createRedisRateLimiter } from './redis.js';
import type { RateLimiter } from './types.js';

export type { RateLimitDecision, RateLimiter } from './types.js';

export function createRateLimiter(config: Pick<Config, 'CACHE_URL'>, onError?: (error: unknown) => void): RateLimiter {
  if (config.CACHE_URL && /^rediss?:\/\//.test(config.CACHE_URL))
    return createRedisRateLimiter({ url: config.CACHE_URL, onError });
  return createMemoryRateLimiter();
}
