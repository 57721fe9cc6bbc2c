// Aggregate metrics for operators (GET /admin/metrics): accounts, keys, and per window (last 24 h, this month)
// requests and credits by operation, fetcher and status, the cache-hit ratio, latency percentiles and errors.
import { sql, type ExpressionBuilder } from 'kysely';
import { toCredits } from '../pricing.js';
import type { Store } from '../store/db.js';
import { BILLING_OPERATIONS, type Database } from '../store/types.js';
import { monthBounds, type Clock } from './clock.js';

type Ledger = ExpressionBuilder<Database, 'ledger'>;

const credits = (eb: Ledger) => eb.fn.coalesce(eb.fn.sum<number>('credits_millis'), sql.lit(0)).as('millis');
const count = (eb: Ledger) => eb.fn.countAll<number>().as('requests');

export function createMetrics(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const db = store.db;

  async function percentile(since: number, total: number, q: number): Promise<number | null> {
    if (total === 0) return null;
    const row = await db
      .selectFrom('ledger')
      .select('duration_ms')
      .where('at', '>=', since)
      .where('operation', 'not in', BILLING_OPERATIONS)
      .orderBy('duration_ms')
      .limit(1)
      .offset(Math.min(total - 1, Math.floor(total * q)))
      .executeTakeFirst();
    return row ? Number(row.duration_ms) : null;
  }

  async function summarizeWindow(since: number) {
    const window = db.selectFrom('ledger').where('at', '>=', since).where('operation', 'not in', BILLING_OPERATIONS);
    const [totals, byOperation, byFetcher, byStatus] = await Promise.all([
      window
        .select((eb) => [
          count(eb),
          credits(eb),
          eb.fn.sum<number>(eb.case().when('account_id', 'is', null).then(1).else(0).end()).as('anonymous'),
          eb.fn.sum<number>(eb.case().when('status', '=', 'ok').then(0).else(1).end()).as('errors'),
          eb.fn.sum<number>(eb.case().when('status', '=', 'ok').then(eb.case().when('fetcher', 'is not', null).then(1).else(0).end()).else(0).end()).as('pages'),
          eb.fn.sum<number>(eb.case().when('status', '=', 'ok').then(sql.ref<number>('cache_hit')).else(0).end()).as('hits'),
        ])
        .executeTakeFirstOrThrow(),
      window.select((eb) => ['operation as key', count(eb), credits(eb)]).groupBy('operation').execute(),
      window.where('fetcher', 'is not', null).select((eb) => ['fetcher as key', count(eb), credits(eb)]).groupBy('fetcher').execute(),
      window.select((eb) => ['status', count(eb)]).groupBy('status').execute(),
    ]);
    const requests = Number(totals.requests);
    const pages = Number(totals.pages ?? 0);
    const [p50, p95] = await Promise.all([percentile(since, requests, 0.5), percentile(since, requests, 0.95)]);
    const group = (rows: { key: string | null; requests: unknown; millis: unknown }[]) =>
      Object.fromEntries(rows.map((r) => [r.key ?? 'none', { requests: Number(r.requests), credits: toCredits(Number(r.millis)) }]));
    return {
      since: new Date(since).toISOString(),
      requests,
      anonymous_requests: Number(totals.anonymous ?? 0),
      credits: toCredits(Number(totals.millis)),
      errors: Number(totals.errors ?? 0),
      cache_hit_ratio: pages === 0 ? null : Number(totals.hits ?? 0) / pages,
      latency_ms: { p50, p95 },
      by_operation: group(byOperation),
      by_fetcher: group(byFetcher),
      by_status: Object.fromEntries(byStatus.map((r) => [r.status, Number(r.requests)])),
    };
  }

  return async function collectMetrics() {
    const now = clock.now();
    const [accounts, byPlan, keys, sessions, last24h, month] = await Promise.all([
      db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      db.selectFrom('accounts').select((eb) => ['plan', eb.fn.countAll<number>().as('n')]).groupBy('plan').execute(),
      db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('revoked_at', 'is', null).executeTakeFirstOrThrow(),
      db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('expires_at', '>', now).executeTakeFirstOrThrow(),
      summarizeWindow(now - 86_400_000),
      summarizeWindow(monthBounds(now).start),
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
