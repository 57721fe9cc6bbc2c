// The rate limiters: fixed windows with the same answers in memory and in Redis.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis.js';
import type { RateLimiter } from '../../src/ratelimit/types.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisUp(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);
    return false;
  } finally {
    client.disconnect();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The memory limiter's time, moved on by the test; Redis windows expire on Redis's clock, which only waiting moves. */
let now = Date.now();

const limiters: { name: string; make(): Promise<RateLimiter | null>; pass(ms: number): Promise<void> }[] = [
  {
    name: 'memory',
    make: async () => createMemoryRateLimiter({ now: () => now }),
    pass: async (ms) => {
      now += ms;
    },
  },
  {
    name: 'redis',
    make: async () =>
      (await redisUp())
        ? createRedisRateLimiter({ url: REDIS_URL, prefix: `fetchdown:test:${randomBytes(4).toString('hex')}:` })
        : null,
    pass: async (ms) => {
      await sleep(ms + 100);
    },
  },
];

for (const { name, make, pass } of limiters) {
  describe(`${name} rate limiter`, () => {
    test('counts within a window, refuses past the limit, and starts again after it', async (t) => {
      const limiter = await make();
      if (!limiter) return t.skip('Redis not reachable');
      t.after(() => limiter.close());
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.hit('k', 3, 1));
      assert.deepEqual(
        decisions.map((d) => [d.allowed, d.remaining, d.limit]),
        [
          [true, 2, 3],
          [true, 1, 3],
          [true, 0, 3],
          [false, 0, 3],
        ],
      );
      assert.ok(decisions.every((d) => d.resetSeconds === 1));
      assert.equal((await limiter.hit('other', 3, 1)).allowed, true, 'keys count apart');
      await pass(1000);
      const again = await limiter.hit('k', 3, 1);
      assert.deepEqual([again.allowed, again.remaining], [true, 2]);
    });
  });
}

for (const { name, make, pass } of limiters) {
  test(`${name} rate limiter: peek reads a count without adding to it`, async (t) => {
    const limiter = await make();
    if (!limiter) return t.skip('Redis not reachable');
    t.after(() => limiter.close());
    assert.deepEqual(await limiter.peek('p', 2, 1).then((d) => [d.allowed, d.remaining]), [true, 1]);
    await limiter.hit('p', 2, 1);
    for (let i = 0; i < 3; i++)
      assert.deepEqual(await limiter.peek('p', 2, 1).then((d) => [d.allowed, d.remaining]), [true, 0]);
    await limiter.hit('p', 2, 1);
    assert.equal((await limiter.peek('p', 2, 1)).allowed, false, 'a third hit would be past the limit');
    await pass(1000);
    assert.equal((await limiter.peek('p', 2, 1)).allowed, true, 'a new window');
  });
}

test('an unreachable Redis fails open and reports why', async (t) => {
  const errors: unknown[] = [];
  const limiter = createRedisRateLimiter({ url: 'redis://127.0.0.1:1', onError: (e) => errors.push(e) });
  t.after(() => limiter.close());
  const decision = await limiter.hit('k', 1, 60);
  assert.equal(decision.allowed, true);
  assert.equal(errors.length, 1);
});

describe('redis rate limiter: leases', () => {
  const prefix = () => `fetchdown:test:${randomBytes(4).toString('hex')}:`;

  test('a key far from its limit is answered from a lease: Redis counts only what was reserved', async (t) => {
    if (!(await redisUp())) return t.skip('Redis not reachable');
    const p = prefix();
    const limiter = createRedisRateLimiter({ url: REDIS_URL, prefix: p });
    const redis = new Redis(REDIS_URL);
    t.after(() => Promise.all([limiter.close(), redis.quit()]));
    const decisions = [];
    for (let i = 0; i < 1000; i++) decisions.push(await limiter.hit('busy', 1_000_000, 60));
    assert.ok(decisions.every((d) => d.allowed));
    // The first hit reserves one request, the second a lease of 1,024 that answers the next 1,023 in this process.
    assert.equal(await redis.get(`${p}busy`), '1025');
    assert.deepEqual(
      decisions.slice(0, 3).map((d) => d.remaining),
      [999_999, 999_998, 999_997],
    );
  });

  test('processes sharing a key never answer more than its limit between them, and a refused key asks no more', async (t) => {
    if (!(await redisUp())) return t.skip('Redis not reachable');
    const p = prefix();
    const [a, b] = [0, 1].map(() => createRedisRateLimiter({ url: REDIS_URL, prefix: p }));
    const redis = new Redis(REDIS_URL);
    t.after(() => Promise.all([a!.close(), b!.close(), redis.quit()]));
    const hits = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => await (i % 3 === 0 ? a! : b!).hit('shared', 200, 60)),
    );
    assert.equal(hits.filter((d) => d.allowed).length, 200);
    // Each process learns that the key is past its limit from its own next reservation, then stops asking.
    for (const limiter of [a!, b!]) assert.equal((await limiter.hit('shared', 200, 60)).allowed, false);
    const counted = await redis.get(`${p}shared`);
    for (let i = 0; i < 20; i++) assert.equal((await (i % 2 ? a! : b!).hit('shared', 200, 60)).allowed, false);
    assert.equal(await redis.get(`${p}shared`), counted);
  });
});
