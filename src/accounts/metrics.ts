// Aggregate metrics for operators (GET /admin/metrics): accounts, keys, and per window (the last 24 hours, this month)
// requests and credits by operation, fetcher and status, the cache-hit ratio, latency percentiles and errors. The
// counts come from the hourly usage totals, so the page costs the same at any volume.
import { toCredits } from '../pricing.js';
import type { Store } from '../store/db.js';
import { BILLING_OPERATIONS } from '../store/types.js';
import { monthBounds, type Clock } from './clock.js';
import { ANONYMOUS, EVERYONE, readTotals, sumTotals, type Summed, type TotalsRow } from './totals.js';

const DAY_MS = 86_400_000;

/** Latency percentiles are read from at most this many of a window's latest requests: a bounded read at any volume. */
const LATENCY_SAMPLE = 10_000;

export function createMetrics(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const db = store.db;

  /** p50 and p95 of the durations of the window's latest requests. */
  async function latency(since: number): Promise<{ p50: number | null; p95: number | null }> {
    const rows = await db
      .selectFrom('ledger')
      .select('duration_ms')
      .where('at', '>=', since)
      .where('operation', 'not in', BILLING_OPERATIONS)
      .orderBy('id', 'desc')
      .limit(LATENCY_SAMPLE)
      .execute();
    const durations = rows.map((r) => Number(r.duration_ms)).sort((a, b) => a - b);
    const at = (q: number) => (durations.length === 0 ? null : durations[Math.floor(durations.length * q)]!);
    return { p50: at(0.5), p95: at(0.95) };
  }

  /** The window from `since` (counted by whole hours: the totals are hourly). */
  async function summarizeWindow(rows: readonly TotalsRow[], since: number) {
    const hour = Math.floor(since / 3_600_000) * 3_600_000;
    const inWindow = rows.filter((row) => row.at >= hour);
    const all = sumTotals(inWindow.filter((row) => row.account_id === EVERYONE));
    const anonymous = sumTotals(inWindow.filter((row) => row.account_id === ANONYMOUS));
    const group = (byKey: Summed['byOperation']) =>
      Object.fromEntries(
        Object.entries(byKey).map(([key, g]) => [key, { requests: g.requests, credits: toCredits(g.creditsMillis) }]),
      );
    return {
      since: new Date(hour).toISOString(),
      requests: all.requests,
      anonymous_requests: anonymous.requests,
      credits: toCredits(all.creditsMillis),
      errors: all.failed,
      cache_hit_ratio: all.pages === 0 ? null : all.cacheHits / all.pages,
      latency_ms: await latency(hour),
      by_operation: group(all.byOperation),
      by_fetcher: group(all.byFetcher),
      by_status: all.byStatus,
    };
  }

  return async function collectMetrics() {
    const now = clock.now();
    const [accounts, byPlan, keys, sessions, totals] = await Promise.all([
      db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('accounts')
        .select((eb) => ['plan', eb.fn.countAll<number>().as('n')])
        .groupBy('plan')
        .execute(),
      db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow(),
      readTotals(store, [EVERYONE, ANONYMOUS], Math.min(now - DAY_MS, monthBounds(now).start)),
    ]);
    const [last24h, month] = await Promise.all([
      summarizeWindow(totals, now - DAY_MS),
      summarizeWindow(totals, monthBounds(now).start),
    ]);
    return {
      generated_at: new Date(now).toISOString(),
      accounts: { total: Number(accounts.n), by_plan: Object.fromEntries(byPlan.map((r) => [r.plan, Number(r.n)])) },
      active_keys: Number(keys.n),
      active_sessions: Number(sessions.n),
      last_24h: last24h,
      month,
    };
  };
}
