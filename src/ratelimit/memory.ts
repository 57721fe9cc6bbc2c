// Rate-limit counters in this process: a map of windows, swept as they expire.
import { decide, type RateLimiter } from './types.js';

export function createMemoryRateLimiter(options: { now?: () => number } = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { count: number; endsAt: number }>();
  let nextSweep = 0;

  function sweep(at: number): void {
    if (at < nextSweep) return;
    nextSweep = at + 10_000;
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  }

  return {
    kind: 'memory',
    hit(key, limit, windowSeconds) {
      const at = now();
      sweep(at);
      let window = windows.get(key);
      if (!window || window.endsAt <= at) {
        window = { count: 0, endsAt: at + windowSeconds * 1000 };
        windows.set(key, window);
      }
      window.count++;
      return decide(window.count, limit, window.endsAt - at);
    },
    async peek(key, limit, windowSeconds) {
      const at = now();
      const window = windows.get(key);
      if (!window || window.endsAt <= at) return decide(1, limit, windowSeconds * 1000);
      return decide(window.count + 1, limit, window.endsAt - at);
    },
    async close() {
      windows.clear();
    },
  };
}
