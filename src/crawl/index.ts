// What crawls run on, from the config: their state in the account store, the job engine (BullMQ when the cache is
// Redis, so workers on any machine share the work; else a SQLite queue under DATA_DIR) and the per-host gate (Redis
// or memory, the same choice).
import { join } from 'node:path';
import { connectRedis } from '../cache/redis-connection.js';
import type { Cache } from '../cache/types.js';
import type { Config } from '../config.js';
import type { RobotsPolicy } from '../fetchers/robots.js';
import type { SafeClient } from '../net/safe-client.js';
import { createBullQueue } from '../queue/bullmq.js';
import { createEmbeddedQueue } from '../queue/embedded.js';
import type { Store } from '../store/db.js';
import { createMemoryHostGate, createRedisHostGate } from './host-gate.js';
import { createCrawlStore } from './store.js';

/** Whether crawls' jobs go to BullMQ on the cache's Redis (production) or to the embedded SQLite queue. */
export const redisOf = (config: Pick<Config, 'CACHE_URL'>) =>
  config.CACHE_URL?.startsWith('redis') ? config.CACHE_URL : undefined;

export function createCrawlBackend(
  config: Config,
  parts: { store: Store; cache: Cache; client: SafeClient; robots: RobotsPolicy | null; now(): number },
) {
  const redisUrl = redisOf(config);
  const redis = redisUrl ? connectRedis(redisUrl) : undefined;
  const queue = redisUrl
    ? createBullQueue(redisUrl, { name: config.CRAWL_QUEUE_NAME, lockMs: config.CRAWL_JOB_LOCK_MS })
    : createEmbeddedQueue(join(config.DATA_DIR, 'crawl-queue.sqlite'));
  return {
    ...parts,
    crawls: createCrawlStore(parts.store),
    queue,
    gate: redis ? createRedisHostGate(redis, config.CRAWL_JOB_LOCK_MS) : createMemoryHostGate(),
    settings: {
      hostConcurrency: config.CRAWL_HOST_CONCURRENCY,
      hostDelayMs: config.CRAWL_HOST_DELAY_MS,
      maxBytes: config.CRAWL_MAX_BYTES,
      accountMaxBytes: config.CRAWL_ACCOUNT_MAX_BYTES,
      retentionMs: config.CRAWL_RETENTION_HOURS * 3_600_000,
      maxQueryVariants: config.CRAWL_MAX_QUERY_VARIANTS,
      claimMs: config.CRAWL_JOB_LOCK_MS,
    },
    async close() {
      await queue.close();
      redis?.disconnect();
    },
  };
}
