// Politeness that holds across every worker: at most `limit` requests at once to a host, and at least `delayMs`
// between the starts of two (the larger of the operator's minimum and the host's robots.txt Crawl-delay). In memory
// for the embedded default's one process; in Redis (one atomic script, Redis's own clock) for workers on many
// machines. A hold expires by itself, so a worker that dies does not keep a host's slot: in Redis a live worker
// renews its holds, so they can be short, and a dead worker's go soon.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export type GateAnswer = { ok: true; release(): Promise<void> } | { ok: false; retryInMs: number };

export interface HostGate {
  enter(host: string, limit: number, delayMs: number): Promise<GateAnswer>;
}

/** How long a hold lasts in memory if it is never released: longer than any fetch. */
const HOLD_MS = 120_000;
/** When every slot is taken, the job looks again this much later. */
const FULL_RETRY_MS = 100;

export function createMemoryHostGate(now: () => number = Date.now): HostGate {
  const hosts = new Map<string, { holds: Map<string, number>; next: number }>();
  return {
    async enter(host, limit, delayMs) {
      const at = now();
      let state = hosts.get(host);
      if (!state) hosts.set(host, (state = { holds: new Map(), next: 0 }));
      for (const [token, until] of state.holds) if (until < at) state.holds.delete(token);
      if (at < state.next) return { ok: false, retryInMs: state.next - at };
      if (state.holds.size >= limit) return { ok: false, retryInMs: FULL_RETRY_MS };
      const token = randomUUID();
      state.holds.set(token, at + HOLD_MS);
      state.next = at + delayMs;
      const held = state;
      return {
        ok: true,
        release: async () => {
          held.holds.delete(token);
          if (held.holds.size === 0 && held.next <= now()) hosts.delete(host);
        },
      };
    },
  };
}

// KEYS: the host's holds (a sorted set scored by expiry) and its next start; ARGV: limit, delay, hold, token.
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
if now < nextAt then return nextAt - now end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return -1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[2], now + tonumber(ARGV[2]), 'PX', tonumber(ARGV[2])) end
return 0`;

// KEYS: the host's holds; ARGV: hold, token. Moves a hold that is still there to expire a hold from now.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return 0`;

/** `holdMs`: how long a hold outlives the last renewal of a worker that stopped (killed): the job lock's time. */
export function createRedisHostGate(redis: Redis, holdMs: number): HostGate {
  const keys = (host: string) => [`fetchdown:crawl:holds:${host}`, `fetchdown:crawl:next:${host}`];
  return {
    async enter(host, limit, delayMs) {
      const token = randomUUID();
      const [holds, next] = keys(host);
      const wait = Number(await redis.eval(ENTER, 2, holds!, next!, limit, delayMs, holdMs, token));
      if (wait !== 0) return { ok: false, retryInMs: wait < 0 ? FULL_RETRY_MS : wait };
      // Renewed at a third of its time, so a renewal that fails once (a slow Redis) still comes before it runs out.
      const renewal = setInterval(() => {
        redis.eval(RENEW, 1, holds!, holdMs, token).catch(() => undefined);
      }, holdMs / 3);
      renewal.unref();
      return {
        ok: true,
        release: async () => {
          clearInterval(renewal);
          await redis.zrem(holds!, token);
        },
      };
    },
  };
}
