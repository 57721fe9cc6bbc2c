// The usage summary of an account for the current calendar month: credits by operation and fetcher, counts,
// what is left of the allowance, the balance, and a per-day series for a chart.
import { toCredits } from '../pricing.js';
import type { Store } from '../store/db.js';
import { BILLING_OPERATIONS, type Account } from '../store/types.js';
import { dayIndex, dayLabel, monthBounds, type Clock } from './clock.js';
import type { Credits } from './credits/index.js';
import { readTotals, sumTotals, type Summed } from './totals.js';

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

export function createUsage(deps: { store: Store; clock: Clock; credits: Credits }) {
  const { store, clock, credits } = deps;

  return async function summarizeUsage(account: Account): Promise<UsageSummary> {
    const now = clock.now();
    const { start, end } = monthBounds(now);
    // First: the view writes this process's queued rows, which the totals below must see.
    const view = await credits.view(account.id);
    const [rows, purchases] = await Promise.all([
      readTotals(store, [account.id], start, end),
      store.db
        .selectFrom('ledger')
        .where('account_id', '=', account.id)
        .where('at', '>=', start)
        .where('at', '<', end)
        .where('operation', 'in', BILLING_OPERATIONS)
        .select(['at', 'operation', 'item_key', 'credited_millis'])
        .orderBy('id')
        .execute(),
    ]);
    const totals = sumTotals(rows);
    const { allowance } = view;
    const daily = new Map<number, { millis: number; requests: number }>();
    for (let day = dayIndex(start); day <= dayIndex(now); day++) daily.set(day, { millis: 0, requests: 0 });
    for (const row of rows) {
      const day = daily.get(dayIndex(row.at));
      if (!day) continue;
      day.millis += row.creditsMillis;
      day.requests += row.requests;
    }
    const group = (byKey: Summed['byOperation']) =>
      Object.fromEntries(
        Object.entries(byKey).map(([key, g]) => [key, { credits: toCredits(g.creditsMillis), requests: g.requests }]),
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
      credits_used: toCredits(totals.creditsMillis),
      requests: totals.requests,
      fetches: totals.fetches,
      cache_hits: totals.cacheHits,
      failed: totals.failed,
      by_operation: group(totals.byOperation),
      by_fetcher: group(totals.byFetcher),
      daily: [...daily].map(([day, d]) => ({
        date: dayLabel(day),
        credits: toCredits(d.millis),
        requests: d.requests,
      })),
      purchases: purchases.map((row) => ({
        at: new Date(Number(row.at)).toISOString(),
        operation: row.operation,
        item_key: row.item_key,
        credits_added: toCredits(Number(row.credited_millis)),
      })),
    };
  };
}
