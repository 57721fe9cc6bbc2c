// Picks the cache backend from the config: embedded (memory LRU in front of SQLite), memory only, or Redis (with a
// memory front kept coherent across processes).
import { join } from 'node:path';
import type { Config } from '../config.js';
import { systemClock, type Clock } from '../util/clock.js';
import { createMemoryCache } from './memory.js';
import { createRedisCache } from './redis.js';
import { createSharedCache } from './shared.js';
import { createSqliteCache } from './sqlite.js';
import { createTieredCache } from './tiered.js';
import type { Cache } from './types.js';

/** `clock`: when entries expire; tests move it on instead of sleeping. */
export function createCache(
  config: Pick<Config, 'CACHE_URL' | 'DATA_DIR' | 'CACHE_MEMORY_ENTRIES'>,
  clock: Clock = systemClock,
): Cache {
  const url = config.CACHE_URL;
  const maxEntries = config.CACHE_MEMORY_ENTRIES;
  if (url === undefined) {
    const sqlite = createSqliteCache({ path: join(config.DATA_DIR, 'cache.sqlite'), clock });
    if (maxEntries === 0) return sqlite;
    return createTieredCache(createMemoryCache({ maxEntries, clock }), sqlite, clock);
  }
  if (url.startsWith('memory://')) return createMemoryCache({ maxEntries, clock });
  if (/^rediss?:\/\//.test(url)) {
    return maxEntries === 0 ? createRedisCache({ url, clock }) : createSharedCache({ url, maxEntries, clock });
  }
  throw new Error(`CACHE_URL: unsupported scheme in "${url}"`);
}
