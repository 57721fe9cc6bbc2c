// Rate-limit counters in Redis, shared by every process. A process reserves a key's requests in Redis (one INCRBY and,
// on a window's first hit, its expiry, atomically) and, for a key far from its limit, reserves several at once and
// answers the next hits from that lease without a round trip. Never more than the limit is reserved across the
// processes, so the limit holds exactly; a lease left unused when its window ends is lost, and near the limit every
// reservation is of one request, so at most a few of the last requests of a window can be refused early.
import { connectRedis } from '../cache/redis-connection.js';
import { decide, type RateLimitDecision, type RateLimiter } from './types.js';

const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

const PEEK = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}`;

interface Scripts {
  rateLimitHit(key: string, windowMs: string, requests: string): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number]>;
}

/**
 * What a lease takes of what is left of the limit: a thirty-second share, so that a key's processes together hold
 * little of it, at most LEASE_MAX requests. Below 64 left, a lease is the one request that asked for it.
 */
const LEASE_SHARE = 32;
const LEASE_MAX = 1024;

/** Requests this process has reserved for a key and not yet answered, until the key's window ends. */
interface Lease {
  left: number;
  endsAt: number;
  /** The key's count in Redis (every process's reservations) when this process last reserved. */
  reserved: number;
  limit: number;
}

function leaseSize(limit: number, reserved: number): number {
  return Math.max(1, Math.min(LEASE_MAX, Math.floor((limit - reserved) / LEASE_SHARE)));
}

function decision(lease: Lease, allowed: boolean, now: number): RateLimitDecision {
  return {
    allowed,
    limit: lease.limit,
    // What this process still holds is the caller's too, besides what no process has reserved yet.
    remaining: allowed ? Math.max(0, lease.limit - lease.reserved) + lease.left : 0,
    resetSeconds: Math.max(1, Math.ceil((lease.endsAt - now) / 1000)),
  };
}

export function createRedisRateLimiter(options: {
  url: string;
  prefix?: string;
  onError?: (error: unknown) => void;
}): RateLimiter {
  const prefix = options.prefix ?? 'fetchdown:ratelimit:';
  // Defined commands are sent as EVALSHA (the script's text once, then its hash), EVAL only when Redis lacks it.
  const redis = connectRedis(options.url) as ReturnType<typeof connectRedis> & Scripts;
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK });
  const leases = new Map<string, Lease>();
  let nextSweep = 0;

  function sweep(at: number): void {
    if (at < nextSweep) return;
    nextSweep = at + 10_000;
    for (const [key, lease] of leases) if (lease.endsAt <= at) leases.delete(key);
  }

  async function reserve(key: string, limit: number, windowSeconds: number, held?: Lease) {
    const size = held ? leaseSize(limit, held.reserved) : 1;
    try {
      const [count, ttl] = await redis.rateLimitHit(prefix + key, String(windowSeconds * 1000), String(size));
      const at = Date.now();
      const granted = Math.max(0, Math.min(size, limit - (count - size)));
      // Concurrent reservations of one window add up; a reservation in a new window starts the lease again.
      const current = leases.get(key);
      const lease: Lease =
        current && current.endsAt > at && current.limit === limit
          ? current
          : { left: 0, endsAt: at + ttl, reserved: 0, limit };
      lease.reserved = Math.max(lease.reserved, count);
      if (granted === 0) {
        // Past the limit, a fixed window stays past it until it ends: refused here without asking again.
        lease.left = 0;
        lease.reserved = Math.max(lease.reserved, limit + 1);
        leases.set(key, lease);
        return decision(lease, false, at);
      }
      lease.left += granted - 1;
      leases.set(key, lease);
      return decision(lease, true, at);
    } catch (error) {
      // Fail open: an unreachable Redis must not take the API down; /ready reports it through the cache check.
      options.onError?.(error);
      return decide(0, limit, windowSeconds * 1000);
    }
  }

  return {
    kind: 'redis',
    hit(key, limit, windowSeconds) {
      const at = Date.now();
      sweep(at);
      const lease = leases.get(key);
      if (lease && lease.endsAt > at && lease.limit === limit) {
        if (lease.left > 0) {
          lease.left--;
          return decision(lease, true, at);
        }
        if (lease.reserved > limit) return decision(lease, false, at);
      }
      return reserve(key, limit, windowSeconds, lease && lease.endsAt > at ? lease : undefined);
    },
    async peek(key, limit, windowSeconds) {
      try {
        const [count, ttl] = await redis.rateLimitPeek(prefix + key);
        return decide(count + 1, limit, ttl > 0 ? ttl : windowSeconds * 1000);
      } catch (error) {
        options.onError?.(error);
        return decide(0, limit, windowSeconds * 1000);
      }
    },
    async close() {
      leases.clear();
      redis.disconnect();
    },
  };
}
