// Fixed-window request counters behind one interface: in memory for one process, in Redis when processes share them.

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window after this one (0 when refused). */
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /**
   * Counts one request against `key` and says whether it is within `limit` per `windowSeconds`: at once when the
   * counts are in this process (memory), so a request's hook needs no promise for it.
   */
  hit(key: string, limit: number, windowSeconds: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Reads `key`'s count without adding to it: `allowed` says whether one more hit would still be within `limit`. */
  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** The decision for `count` hits in a window with `msLeft` to run. */
export function decide(count: number, limit: number, msLeft: number): RateLimitDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}
