// The cache backends an HTTP test runs on: memory, the embedded SQLite default, and Redis when it answers (required
// in CI). Each gives the env for buildTestApp, or a reason to skip.
import { Redis } from 'ioredis';

export interface CacheBackend {
  name: 'memory' | 'sqlite' | 'redis';
  env(): Promise<Record<string, string> | string>;
}

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export const CACHE_BACKENDS: CacheBackend[] = [
  { name: 'memory', env: async () => ({ CACHE_URL: 'memory://' }) },
  { name: 'sqlite', env: async () => ({ CACHE_URL: '' }) },
  {
    name: 'redis',
    env: async () => {
      if (await redisReachable()) return { CACHE_URL: REDIS_URL };
      if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);
      return `Redis not reachable at ${REDIS_URL}`;
    },
  },
];
