// Picks the cache backend from the config: embedded (memory LRU in front of SQLite), memory only, or Redis.
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createMemoryCache } from './memory.js';
import { createRedisCache } from './redis.js';
import { createSqliteCache } from './sqlite.js';
import { createTieredCache } from './tiered.js';
import type { Cache } from './types.js';

export function createCache(config: Pick<Config, 'CACHE_URL' | 'DATA_DIR' | 'CACHE_MEMORY_ENTRIES'>): Cache {
  const url = config.CACHE_URL;
  if (url === undefined) {
    const sqlite = createSqliteCache({ path: join(config.DATA_DIR, 'cache.sqlite') });
    if (config.CACHE_MEMORY_ENTRIES === 0) return sqlite;
    return createTieredCache(createMemoryCache({ maxEntries: config.CACHE_MEMORY_ENTRIES }), sqlite);
  }
  if (url.startsWith('memory://')) return createMemoryCache({ maxEntries: config.CACHE_MEMORY_ENTRIES });
  // No memory front for Redis: every process must see a delete at once.
  if (/^rediss?:\/\//.test(url)) return createRedisCache({ url });
  throw new Error(`CACHE_URL: unsupported scheme in "${url}"`);
}
