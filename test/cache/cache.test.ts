// One behaviour suite, run against every cache backend: memory, SQLite, memory in front of SQLite, and Redis.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { createCache } from '../../src/cache/index.js';
import { createMemoryCache } from '../../src/cache/memory.js';
import { createRedisCache } from '../../src/cache/redis.js';
import { createSharedCache } from '../../src/cache/shared.js';
import { createSqliteCache } from '../../src/cache/sqlite.js';
import { createTieredCache } from '../../src/cache/tiered.js';
import type { Cache } from '../../src/cache/types.js';

const dir = mkdtempSync(join(tmpdir(), 'fetchdown-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `fd:test:${randomUUID()}:`; // a run of its own, removed afterwards

/** Null when Redis answers; else why not. */
async function redisUnavailable(): Promise<string | null> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: Error | undefined; // the socket error (ECONNREFUSED…) says more than the rejected connect()
  probe.on('error', (error: Error) => (cause ??= error));
  try {
    await probe.connect();
    await probe.ping();
    return null;
  } catch (error) {
    return `Redis not reachable at ${REDIS_URL} (${(cause ?? (error as Error)).message})`;
  } finally {
    probe.disconnect();
  }
}

const redisSkip = await redisUnavailable();
if (redisSkip && process.env.CI === 'true') throw new Error(`${redisSkip}: CI must test the Redis cache`);

after(async () => {
  if (redisSkip) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${REDIS_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Time the caches read: tests move it on instead of sleeping. */
let now = Date.now();
const clock = { now: () => now };

let sqliteFiles = 0;
const backends: { name: string; make: () => Cache; skip?: string }[] = [
  { name: 'memory', make: () => createMemoryCache({ maxEntries: 100, clock }) },
  {
    name: 'sqlite',
    make: () => createSqliteCache({ path: join(dir, `suite-${sqliteFiles++}`, 'cache.sqlite'), clock }),
  },
  {
    name: 'tiered',
    make: () =>
      createTieredCache(
        createMemoryCache({ maxEntries: 100, clock }),
        createSqliteCache({ path: join(dir, `tiered-${sqliteFiles++}.sqlite`), clock }),
        clock,
      ),
  },
  {
    name: 'redis',
    make: () => createRedisCache({ url: REDIS_URL, keyPrefix: REDIS_PREFIX, clock }),
    ...(redisSkip ? { skip: redisSkip } : {}),
  },
  {
    name: 'shared (memory front on Redis)',
    make: () => createSharedCache({ url: REDIS_URL, maxEntries: 100, keyPrefix: REDIS_PREFIX, clock }),
    ...(redisSkip ? { skip: redisSkip } : {}),
  },
];

for (const backend of backends) {
  describe(`${backend.name} cache`, { skip: backend.skip }, () => {
    let cache: Cache;
    const key = () => `k-${randomUUID()}`;
    test('opens and answers ping', async () => {
      cache = backend.make();
      await cache.ping();
    });
    after(() => cache?.close());

    test('a missing key is a miss', async () => {
      assert.equal(await cache.get(key()), null);
    });

    test('set then get round-trips the value with storedAt and expiresAt', async () => {
      const k = key();
      const stored = await cache.set(k, { title: 'Tomato', tokens: { markdown: 12, text: 10 }, tags: ['a', null] }, 60);
      assert.equal(stored.storedAt, now);
      assert.equal(stored.expiresAt, stored.storedAt + 60_000);
      const hit = await cache.get<typeof stored.value>(k);
      assert.deepEqual(hit, stored);
    });

    test('an entry expires after its ttl', async () => {
      const k = key();
      await cache.set(k, 'short-lived', 1);
      assert.equal((await cache.get(k))?.value, 'short-lived');
      now += 999;
      assert.equal((await cache.get(k))?.value, 'short-lived', 'still there 1 ms before it expires');
      now += 1;
      assert.equal(await cache.get(k), null);
      assert.equal(await cache.delete(k), false, 'an expired entry is not there to delete');
    });

    test('delete removes an entry once', async () => {
      const k = key();
      await cache.set(k, 1, 60);
      assert.equal(await cache.delete(k), true);
      assert.equal(await cache.get(k), null);
      assert.equal(await cache.delete(k), false);
    });

    test('set overwrites value and lifetime', async () => {
      const k = key();
      await cache.set(k, 'first', 60);
      const second = await cache.set(k, 'second', 120);
      assert.deepEqual(await cache.get(k), second);
      assert.equal(second.expiresAt - second.storedAt, 120_000);
    });

    test('keeps a 1 MB value', async () => {
      const k = key();
      const value = 'x'.repeat(1024 * 1024);
      await cache.set(k, value, 60);
      assert.equal((await cache.get<string>(k))?.value, value);
    });

    test('keeps unicode keys and values intact', async () => {
      const k = `${key()}-ключ-键-🔑`;
      const value = { text: 'Grüße, 你好, مرحبا, 😀👍🏽, \u0000 \u2028 \uFEFF', nested: ['ß', 'ǅ'] };
      await cache.set(k, value, 60);
      assert.deepEqual((await cache.get(k))?.value, value);
    });
  });
}

describe('sqlite cache', () => {
  test('survives closing and reopening the same file', async () => {
    const path = join(dir, 'reopen', 'nested', 'cache.sqlite'); // parent directories are created
    const first = createSqliteCache({ path });
    const stored = await first.set('page', { markdown: '# Hi' }, 60);
    await first.close();
    const second = createSqliteCache({ path });
    assert.deepEqual(await second.get('page'), stored);
    await second.close();
  });

  test('purges expired rows when opened', async () => {
    const path = join(dir, 'purge.sqlite');
    const cache = createSqliteCache({ path, clock });
    await cache.set('gone', 'soon', 1);
    await cache.set('kept', 'later', 60);
    await cache.close();
    now += 1_000;
    await createSqliteCache({ path, clock }).close();
    const db = new Database(path, { readonly: true });
    assert.deepEqual(db.prepare('SELECT key FROM cache').all(), [{ key: 'kept' }]);
    db.close();
  });
});

describe('memory cache', () => {
  test('evicts the least recently used entry beyond maxEntries', async () => {
    const cache = createMemoryCache({ maxEntries: 2 });
    await cache.set('a', 1, 60);
    await cache.set('b', 2, 60);
    await cache.get('a');
    await cache.set('c', 3, 60);
    assert.equal(await cache.get('b'), null);
    assert.equal((await cache.get('a'))?.value, 1);
    assert.equal((await cache.get('c'))?.value, 3);
  });

  test('keeps nothing with maxEntries 0', async () => {
    const cache = createMemoryCache({ maxEntries: 0 });
    await cache.set('a', 1, 60);
    assert.equal(await cache.get('a'), null);
    assert.equal(await cache.delete('a'), false);
  });
});

describe('tiered cache', () => {
  test('refills the front from the back, keeping the back entry times', async () => {
    const front = createMemoryCache({ maxEntries: 10, clock });
    const back = createMemoryCache({ maxEntries: 10, clock });
    const tiered = createTieredCache(front, back, clock);
    const stored = await back.set('page', 'from the back', 60);
    now += 5; // a refill later than the write must still carry the write's times
    assert.deepEqual(await tiered.get('page'), stored);
    assert.deepEqual((await front.get('page'))?.value, stored, 'the front now holds the back entry');
    await back.delete('page');
    assert.deepEqual(await tiered.get('page'), stored, 'served by the front');
  });

  test('writes and deletes reach both levels', async () => {
    const front = createMemoryCache({ maxEntries: 10 });
    const back = createMemoryCache({ maxEntries: 10 });
    const tiered = createTieredCache(front, back);
    const stored = await tiered.set('page', 'both', 60);
    assert.deepEqual(await back.get('page'), stored);
    assert.deepEqual((await front.get('page'))?.value, stored);
    assert.equal(await tiered.delete('page'), true);
    assert.equal(await front.get('page'), null);
    assert.equal(await back.get('page'), null);
  });
});

describe('createCache', () => {
  test('defaults to memory in front of SQLite under DATA_DIR', async () => {
    const dataDir = join(dir, 'data');
    const cache = createCache({ CACHE_URL: undefined, DATA_DIR: dataDir, CACHE_MEMORY_ENTRIES: 10 });
    const stored = await cache.set('page', 'persisted', 60);
    await cache.close();
    const reopened = createSqliteCache({ path: join(dataDir, 'cache.sqlite') });
    assert.deepEqual(await reopened.get('page'), stored);
    await reopened.close();
  });

  test('memory:// keeps entries in the process only', async () => {
    const cache = createCache({ CACHE_URL: 'memory://', DATA_DIR: join(dir, 'unused'), CACHE_MEMORY_ENTRIES: 10 });
    await cache.set('page', 'here', 60);
    assert.equal((await cache.get('page'))?.value, 'here');
    await cache.close();
  });

  test(
    'redis:// shares entries between processes, each with a coherent memory front',
    { skip: redisSkip ?? undefined },
    async () => {
      const config = { CACHE_URL: REDIS_URL, DATA_DIR: join(dir, 'unused'), CACHE_MEMORY_ENTRIES: 10 };
      const [one, other, third] = [createCache(config), createCache(config), createCache(config)];
      const k = `test-${randomUUID()}`; // its own key beside real entries; expires within a minute if the test stops early
      try {
        await Promise.all([one.ping(), other.ping(), third.ping()]);
        await waitForSubscriptions([one, other, third]);
        await one.set(k, { page: 'v1' }, 60);
        const first = await other.get(k);
        assert.deepEqual(first?.value, { page: 'v1' });
        assert.equal(await other.get(k), first, 'the second read is the front copy itself, not a new parse');
        await third.get(k);
        await one.set(k, { page: 'v2' }, 60);
        assert.deepEqual((await other.get(k))?.value, { page: 'v2' }, 'a new copy is seen by every process at once');
        assert.deepEqual((await third.get(k))?.value, { page: 'v2' });
        assert.equal(await third.delete(k), true);
        assert.equal(await one.get(k), null, 'a delete is seen by every process once it answers');
        assert.equal(await other.get(k), null);
      } finally {
        await Promise.all([one.close(), other.close(), third.close()]);
      }
    },
  );

  test('redis:// with CACHE_MEMORY_ENTRIES=0 has no front', { skip: redisSkip ?? undefined }, async () => {
    const one = createCache({ CACHE_URL: REDIS_URL, DATA_DIR: join(dir, 'unused'), CACHE_MEMORY_ENTRIES: 0 });
    const other = createRedisCache({ url: REDIS_URL }); // the default prefix, as another process would use
    const k = `test-${randomUUID()}`;
    try {
      await one.set(k, 'shared', 60);
      assert.equal(await other.delete(k), true);
      assert.equal(await one.get(k), null);
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  });
});

/** A shared cache bypasses its front until its subscription is up: wait until each one's front holds what it reads. */
async function waitForSubscriptions(caches: Cache[]): Promise<void> {
  const probe = `probe-${randomUUID()}`;
  await caches[0]!.set(probe, 'x', 60);
  for (const cache of caches) {
    while ((await cache.get(probe)) !== (await cache.get(probe))) await new Promise((r) => setTimeout(r, 20));
  }
  await caches[0]!.delete(probe);
}
