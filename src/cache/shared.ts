// Redis shared by several API processes, with an in-process memory front in each. A cache hit served from the front
// is the same object every time, so the answers made from it are kept (answer-memo.ts) instead of re-rendered per
// request: that is what makes a Redis deployment as fast per process as the embedded cache.
//
// Fronts stay coherent through Redis pub/sub: a write or a delete tells the other processes to drop their copy and
// waits until every subscribed process has confirmed it, so a new copy or DELETE /cache is seen by all once it answers
// (a process that does not confirm within a second, a stalled one, is not waited for).
// While this process's subscription is down it may have missed messages: the front is emptied and bypassed until the
// subscription is back.
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../util/clock.js';
import { createMemoryCache } from './memory.js';
import { connectRedis } from './redis-connection.js';
import { createRedisCache } from './redis.js';
import { createTieredCache } from './tiered.js';
import type { Cache } from './types.js';

/** How long a delete waits for the other processes' confirmations before answering anyway. */
const ACK_TIMEOUT_MS = 1000;

interface Waiter {
  expected: number;
  confirmed: number;
  done(): void;
}

export function createSharedCache(options: {
  url: string;
  maxEntries: number;
  keyPrefix?: string;
  clock?: Clock;
}): Cache {
  const clock = options.clock ?? systemClock;
  const prefix = options.keyPrefix ?? 'fd:cache:';
  const channel = `${prefix}invalidate`;
  const origin = randomUUID();
  const back = createRedisCache({ url: options.url, keyPrefix: prefix, clock });
  const front = createMemoryCache({ maxEntries: options.maxEntries, clock });
  const tiered = createTieredCache(front, back, clock);
  const publisher = connectRedis(options.url);
  const subscriber = connectRedis(options.url);
  const waiters = new Map<string, Waiter>();
  let subscribed = false;

  // Messages: `drop <writer> <id> <key>` from a writer to everyone, `ack <writer> <id>` from each other process back.
  subscriber.on('message', (_channel: string, message: string) => {
    const [kind, writer, id, ...key] = message.split(' ');
    if (kind === 'drop' && writer !== origin) {
      void front.delete(key.join(' '));
      publisher.publish(channel, `ack ${writer} ${id}`).catch(() => undefined);
    } else if (kind === 'ack' && writer === origin) {
      const waiter = waiters.get(id!);
      if (waiter && ++waiter.confirmed >= waiter.expected) waiter.done();
    }
  });
  const resubscribe = () => {
    subscriber
      .subscribe(channel)
      .then(() => (subscribed = true))
      .catch(() => undefined);
  };
  subscriber.on('ready', resubscribe);
  subscriber.on('close', () => {
    subscribed = false;
    void front.close(); // empties it: drops missed while disconnected must not leave stale copies behind
  });

  /** Tells the other processes to drop `key`; resolves once they all have (or the timeout has passed). */
  async function broadcastDrop(key: string): Promise<void> {
    const id = randomUUID();
    const waited = new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ACK_TIMEOUT_MS);
      function finish() {
        clearTimeout(timer);
        waiters.delete(id);
        resolve();
      }
      waiters.set(id, { expected: Infinity, confirmed: 0, done: finish });
    });
    try {
      // PUBLISH answers how many subscribers got it, this process's own included.
      const receivers = await publisher.publish(channel, `drop ${origin} ${id} ${key}`);
      const waiter = waiters.get(id);
      if (waiter) {
        waiter.expected = receivers - (subscribed ? 1 : 0);
        if (waiter.confirmed >= waiter.expected) waiter.done();
      }
    } catch {
      waiters.get(id)?.done(); // Redis is down: the others' subscriptions are down too, and their fronts bypassed
    }
    await waited;
  }

  return {
    get: (key) => (subscribed ? tiered.get(key) : back.get(key)),
    async set(key, value, ttlSeconds) {
      const hit = subscribed ? await tiered.set(key, value, ttlSeconds) : await back.set(key, value, ttlSeconds);
      await broadcastDrop(key);
      return hit;
    },
    async delete(key) {
      const deleted = await tiered.delete(key);
      await broadcastDrop(key);
      return deleted;
    },
    ping: () => back.ping(),
    async close() {
      for (const waiter of waiters.values()) waiter.done();
      await Promise.all([
        tiered.close(),
        publisher.quit().catch(() => publisher.disconnect()),
        subscriber.quit().catch(() => subscriber.disconnect()),
      ]);
    },
  };
}
