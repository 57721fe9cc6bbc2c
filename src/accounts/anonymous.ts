// The anonymous tier's monthly allowance: metered requests served without a key, per client address and calendar
// month, kept in the store (so it holds across restarts and processes) as counts added in batches. A process knows
// an address's count as of its last read (at most REFRESH_MS old) plus what it served since, so several processes
// may serve a few more than the allowance between them, never many.
import { createHash } from 'node:crypto';
import type { Store } from '../store/db.js';
import { monthBounds, monthOf, type Clock } from './clock.js';

const REFRESH_MS = 2000;
const FLUSH_MS = 500;

export interface AnonymousRefusal {
  limit: number;
  renewsAt: number;
}

export function createAnonymousAllowance(deps: {
  store: Store;
  clock: Clock;
  /** Requests a month per address; 0: unlimited. */
  limit: number;
  onError(error: unknown): void;
}) {
  const { store, clock, limit } = deps;
  /** Counts read from the store, by address hash and month. */
  const read = new Map<string, { requests: number; at: number }>();
  /** Requests served here and not yet added to the store. */
  let unwritten = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;

  const keyOf = (ip: string, period: string) => `${createHash('sha256').update(ip).digest('hex')} ${period}`;

  async function stored(key: string): Promise<number> {
    const now = clock.now();
    const known = read.get(key);
    if (known && now - known.at < REFRESH_MS) return known.requests;
    const [clientHash, period] = key.split(' ') as [string, string];
    const row = await store.db
      .selectFrom('anonymous_usage')
      .select('requests')
      .where('client_hash', '=', clientHash)
      .where('period', '=', period)
      .executeTakeFirst();
    if (read.size >= 100_000) read.clear();
    read.set(key, { requests: row?.requests ?? 0, at: now });
    return row?.requests ?? 0;
  }

  /** Undefined when `ip` may be served one more metered request this month; else why not. */
  async function check(ip: string): Promise<AnonymousRefusal | undefined> {
    if (limit === 0) return undefined;
    const now = clock.now();
    const key = keyOf(ip, monthOf(now));
    const used = (await stored(key)) + (unwritten.get(key) ?? 0);
    return used < limit ? undefined : { limit, renewsAt: monthBounds(now).end };
  }

  /** Counts one request served to `ip`. */
  function count(ip: string): void {
    if (limit === 0) return;
    const key = keyOf(ip, monthOf(clock.now()));
    unwritten.set(key, (unwritten.get(key) ?? 0) + 1);
    timer ??= setTimeout(() => void flush().catch(deps.onError), FLUSH_MS).unref();
  }

  /** Adds the counts served here to the store's; counts that could not be written wait for the next try. */
  async function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const counts = unwritten;
    unwritten = new Map();
    if (counts.size === 0) return;
    try {
      await store.transaction(async (trx) => {
        for (const [key, requests] of counts) {
          const [clientHash, period] = key.split(' ') as [string, string];
          await trx
            .insertInto('anonymous_usage')
            .values({ client_hash: clientHash, period, requests })
            .onConflict((conflict) =>
              conflict.columns(['client_hash', 'period']).doUpdateSet((eb) => ({
                requests: eb('anonymous_usage.requests', '+', eb.ref('excluded.requests')),
              })),
            )
            .execute();
        }
      });
      for (const [key, requests] of counts) {
        const known = read.get(key);
        if (known) known.requests += requests;
      }
    } catch (error) {
      for (const [key, requests] of counts) unwritten.set(key, (unwritten.get(key) ?? 0) + requests);
      timer ??= setTimeout(() => void flush().catch(deps.onError), FLUSH_MS * 4).unref();
      throw error;
    }
  }

  return { check, count, flush };
}

export type AnonymousAllowance = ReturnType<typeof createAnonymousAllowance>;
