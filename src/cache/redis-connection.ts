// One way to connect to Redis for the cache and the rate limiter: fail fast while the connection is down and
// reconnect in the background, so a Redis outage costs each request milliseconds, not ioredis's queued retries.
import { Redis } from 'ioredis';

/** A command that Redis has not answered within this long fails (a hung server, not a closed one). */
const COMMAND_TIMEOUT_MS = 1000;

export function connectRedis(url: string, options: { keyPrefix?: string } = {}): Redis {
  const redis = new Redis(url, {
    keyPrefix: options.keyPrefix,
    connectTimeout: 2000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Commands on a connection that drops are not retried, and queued commands fail on the first failed attempt.
    // Callers treat a failure as a miss (cache) or an allowed hit (limits).
    maxRetriesPerRequest: 0,
    // Reconnect for ever, at most every 2 s: the background probe that brings the cache back after an outage.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // An 'error' event without a listener would end the process; failures reach callers as rejected commands instead.
  redis.on('error', () => undefined);
  // Commands sent before the first connection wait for it (a process's first requests); once connected, commands
  // sent while the connection is down fail at once instead of queueing for the reconnect.
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  return redis;
}
