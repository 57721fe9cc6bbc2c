// The usage summary of an account for the current calendar month: credits by operation and fetcher, counts,
// what is left of the allowance, the balance, and a per-day series for a chart.
import { sql, type ExpressionBuilder } from 'kysely';
import { toCredits } from '../pricing.js';
import type { Store } from '../store/db.js';
import { BILLING_OPERATIONS, type Account, type Database } from '../store/types.js';
import { dayIndex, dayLabel, monthBounds, type Clock } from './clock.js';
import type { Credits } from './credits/index.js';

export interface UsageSummary {
  period: { month: string; start: string; end: string };
  plan: string;
  allowance: { monthly_credits: number; used_credits: number; remaining_credits: number; renews_at: string };
  balance_credits: number;
  credits_used: number;
  requests: number;
  fetches: number;
  cache_hits: number;
  failed: number;
  by_operation: Record<string, { credits: number; requests: number }>;
  by_fetcher: Record<string, { credits: number; requests: number }>;
  daily: { date: string; credits: number; requests: number }[];
  /** Credit packs bought and plan changes this month (from the billing webhook), oldest first. */
  purchases: { at: string; operation: string; item_key: string | null; credits_added: number }[];
}

const sumCredits = (eb: ExpressionBuilder<Database, 'ledger'>) =>
  eb.fn.coalesce(eb.fn.sum<number>('credits_millis'), sql.lit(0));

/** Operations that fetch pages: a batch row is one page of a batch. */
const FETCH_OPERATIONS = ['fetch', 'batch'];

export function createUsage(deps: { store: Store; clock: Clock; credits: Credits }) {
  const { store, clock, credits } = deps;

  return async function summarizeUsage(account: Account): Promise<UsageSummary> {
    const now = clock.now();
    const { start, end } = monthBounds(now);
    const allRows = store.db
      .selectFrom('ledger')
      .where('account_id', '=', account.id)
      .where('at', '>=', start)
      .where('at', '<', end);
    const month = allRows.where('operation', 'not in', BILLING_OPERATIONS);
    // First: the view writes this process's queued rows, which the sums below must see.
    const view = await credits.view(account.id);
    const [totals, byOperation, byFetcher, byDay, purchases] = await Promise.all([
      month
        .select((eb) => [
          sumCredits(eb).as('millis'),
          eb.fn.countAll().as('requests'),
          eb.fn
            .sum(
              eb
                .case()
                .when('status', '=', 'ok')
                .then(eb.case().when('operation', 'in', FETCH_OPERATIONS).then(1).else(0).end())
                .else(0)
                .end(),
            )
            .as('fetches'),
          eb.fn.sum(eb.case().when('status', '=', 'ok').then(sql.ref('cache_hit')).else(0).end()).as('cache_hits'),
          eb.fn.sum(eb.case().when('status', '=', 'ok').then(0).else(1).end()).as('failed'),
        ])
        .executeTakeFirstOrThrow(),
      month
        .select((eb) => ['operation as key', sumCredits(eb).as('millis'), eb.fn.countAll().as('requests')])
        .groupBy('operation')
        .execute(),
      month
        .where('fetcher', 'is not', null)
        .select((eb) => ['fetcher as key', sumCredits(eb).as('millis'), eb.fn.countAll().as('requests')])
        .groupBy('fetcher')
        .execute(),
      month
        .select((eb) => [
          sql<number>`at / 86400000`.as('day'),
          sumCredits(eb).as('millis'),
          eb.fn.countAll().as('requests'),
        ])
        .groupBy(sql`at / 86400000`)
        .execute(),
      allRows
        .where('operation', 'in', BILLING_OPERATIONS)
        .select(['at', 'operation', 'item_key', 'credited_millis'])
        .orderBy('id')
        .execute(),
    ]);
    const { allowance } = view;
    const perDay = new Map(byDay.map((d) => [Number(d.day), d]));
    const daily: UsageSummary['daily'] = [];
    for (let day = dayIndex(start); day <= dayIndex(now); day++) {
      const row = perDay.get(day);
      daily.push({
        date: dayLabel(day),
        credits: toCredits(Number(row?.millis ?? 0)),
        requests: Number(row?.requests ?? 0),
      });
    }
    const group = (rows: { key: string | null; millis: unknown; requests: unknown }[]) =>
      Object.fromEntries(
        rows.map((r) => [r.key ?? 'none', { credits: toCredits(Number(r.millis)), requests: Number(r.requests) }]),
      );
    return {
      period: { month: allowance.period, start: new Date(start).toISOString(), end: new Date(end).toISOString() },
      plan: view.account.plan,
      allowance: {
        monthly_credits: toCredits(allowance.monthly),
        used_credits: toCredits(Math.min(allowance.used, allowance.monthly)),
        remaining_credits: toCredits(allowance.left),
        renews_at: new Date(allowance.renewsAt).toISOString(),
      },
      balance_credits: toCredits(view.balanceMillis),
      credits_used: toCredits(Number(totals.millis)),
      requests: Number(totals.requests),
      fetches: Number(totals.fetches ?? 0),
      cache_hits: Number(totals.cache_hits ?? 0),
      failed: Number(totals.failed ?? 0),
      by_operation: group(byOperation),
      by_fetcher: group(byFetcher),
      daily,
      purchases: purchases.map((row) => ({
        at: new Date(Number(row.at)).toISOString(),
        operation: row.operation,
        item_key: row.item_key,
        credits_added: toCredits(Number(row.credited_millis)),
      })),
    };
  };
}
