// Reading the usage totals the database keeps per account and hour (store/migrations/0005-usage-totals.ts): a month
// is at most 744 hours of a few rows each, whatever the number of requests in it.
import type { Store } from '../store/db.js';
import type { UsageTotalsTable } from '../store/types.js';

export { ANONYMOUS, EVERYONE } from '../store/migrations/0005-usage-totals.js';

const HOUR_MS = 3_600_000;

export type TotalsRow = Omit<UsageTotalsTable, 'hour' | 'requests' | 'credits_millis'> & {
  /** Start of the hour (epoch ms). */
  at: number;
  requests: number;
  creditsMillis: number;
};

/** Operations that fetch pages: a batch row is one page of a batch. */
const FETCH_OPERATIONS = new Set(['fetch', 'batch']);

/** The totals rows of `accountIds` from the hour holding `since` until the one holding `until` (excluded). */
export async function readTotals(
  store: Store,
  accountIds: readonly number[],
  since: number,
  until = Number.MAX_SAFE_INTEGER,
): Promise<TotalsRow[]> {
  const rows = await store.db
    .selectFrom('usage_totals')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('hour', '>=', Math.floor(since / HOUR_MS))
    .where('hour', '<', Math.ceil(until / HOUR_MS))
    .execute();
  return rows.map(({ hour, requests, credits_millis, ...key }) => ({
    ...key,
    cache_hit: Number(key.cache_hit),
    at: Number(hour) * HOUR_MS,
    requests: Number(requests),
    creditsMillis: Number(credits_millis),
  }));
}

export interface Summed {
  requests: number;
  creditsMillis: number;
  /** Answered pages of fetches and batches. */
  fetches: number;
  /** Answered pages, of any operation that ran a fetcher. */
  pages: number;
  cacheHits: number;
  failed: number;
  byOperation: Record<string, { requests: number; creditsMillis: number }>;
  byFetcher: Record<string, { requests: number; creditsMillis: number }>;
  byStatus: Record<string, number>;
}

export function sumTotals(rows: readonly TotalsRow[]): Summed {
  const summed: Summed = {
    requests: 0,
    creditsMillis: 0,
    fetches: 0,
    pages: 0,
    cacheHits: 0,
    failed: 0,
    byOperation: {},
    byFetcher: {},
    byStatus: {},
  };
  const add = (group: Summed['byOperation'], key: string, row: TotalsRow) => {
    const entry = (group[key] ??= { requests: 0, creditsMillis: 0 });
    entry.requests += row.requests;
    entry.creditsMillis += row.creditsMillis;
  };
  for (const row of rows) {
    const ok = row.status === 'ok';
    summed.requests += row.requests;
    summed.creditsMillis += row.creditsMillis;
    if (ok && FETCH_OPERATIONS.has(row.operation)) summed.fetches += row.requests;
    if (ok && row.fetcher !== '') summed.pages += row.requests;
    if (ok && row.cache_hit) summed.cacheHits += row.requests;
    if (!ok) summed.failed += row.requests;
    add(summed.byOperation, row.operation, row);
    if (row.fetcher !== '') add(summed.byFetcher, row.fetcher, row);
    summed.byStatus[row.status] = (summed.byStatus[row.status] ?? 0) + row.requests;
  }
  return summed;
}
