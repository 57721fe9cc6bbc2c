// Credits: reserve a price before the work, settle to the real price after (refunding the rest), one transaction
// per step with the account row locked, so concurrent requests never spend the same credit twice. The monthly
// allowance is used first, then the prepaid balance.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import type { Account, Database, NewLedgerRow, PlanKey } from '../store/types.js';
import { monthBounds, monthOf, type Clock } from './clock.js';
import type { PlanTable } from './plans.js';

const RECORD_FLUSH_MS = 1000;
const RECORD_BATCH_ROWS = 512;

/** Every column an unbilled row writes, in the order of the batch insert's parameters. */
const LEDGER_COLUMNS = [
  'account_id',
  'key_id',
  'operation',
  'fetcher',
  'credits_millis',
  'balance_millis',
  'cache_hit',
  'tokens',
  'status',
  'url_host',
  'duration_ms',
  'at',
  'credited_millis',
  'item_key',
] as const satisfies readonly (keyof NewLedgerRow)[];
// A ledger column added later must be listed above (and written in record), or batches would leave it out: until it
// is, this does not compile.
const _everyLedgerColumn: Record<Exclude<keyof NewLedgerRow, (typeof LEDGER_COLUMNS)[number] | 'id'>, never> = {};

/** The Postgres type of each ledger column, for the arrays its batch insert takes. */
const POSTGRES_TYPES: Record<(typeof LEDGER_COLUMNS)[number], string> = {
  account_id: 'integer',
  key_id: 'integer',
  operation: 'text',
  fetcher: 'text',
  credits_millis: 'bigint',
  balance_millis: 'bigint',
  cache_hit: 'integer',
  tokens: 'integer',
  status: 'text',
  url_host: 'text',
  duration_ms: 'integer',
  at: 'bigint',
  credited_millis: 'bigint',
  item_key: 'text',
};

/**
 * A batch of unbilled rows on Postgres: one array per column, unnested into rows. Against one VALUES row of 14
 * parameters per ledger row, it halves Postgres's CPU per row (9.1 → 4.4 µs) and the API's (3.2 → 2.2 µs), since
 * the server parses a statement of 14 parameters instead of 7,168 (BENCHMARKS.md, "The production set-up").
 */
const POSTGRES_ARRAYS_INSERT =
  `insert into ledger (${LEDGER_COLUMNS.join(', ')}) ` +
  `select * from unnest(${LEDGER_COLUMNS.map((column, i) => `$${i + 1}::${POSTGRES_TYPES[column]}[]`).join(', ')})`;

/**
 * How a flush of `count` unbilled rows is cut into inserts on SQLite: powers of two up to RECORD_BATCH_ROWS, largest
 * first, so ten statements (1 to 512 rows) serve every flush. A timer flush of any other size compiled and prepared a
 * statement of its own, on the event loop: 2–19 ms each for 200–500 rows, against 0.6–1.5 ms for a size seen before.
 */
export function batchSizes(count: number): number[] {
  const sizes: number[] = [];
  let left = count;
  while (left > 0) {
    const size = Math.min(RECORD_BATCH_ROWS, 2 ** Math.floor(Math.log2(left)));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

export interface Reservation {
  accountId: number;
  period: string;
  fromAllowance: number;
  fromBalance: number;
}

export interface QuotaShortfall {
  plan: PlanKey;
  monthlyMillis: number;
  allowanceLeftMillis: number;
  balanceMillis: number;
  /** When the monthly allowance starts again (epoch ms). */
  renewsAt: number;
}

export type ReserveResult = { ok: true; reservation: Reservation } | ({ ok: false } & QuotaShortfall);

/** What the work turned out to cost and what the ledger row says about it. */
export type Settlement = Omit<NewLedgerRow, 'account_id' | 'credits_millis' | 'balance_millis' | 'at'> & {
  priceMillis: number;
};

/** The allowance state of an account row as of `now`: a row from an older month has used nothing of this one. */
export function allowanceOf(
  account: Pick<Account, 'plan' | 'allowance_period' | 'allowance_used_millis'>,
  plans: PlanTable,
  now: number,
) {
  const period = monthOf(now);
  const used = account.allowance_period === period ? account.allowance_used_millis : 0;
  const monthly = plans[account.plan].monthlyMillis;
  return { period, used, monthly, left: Math.max(0, monthly - used), renewsAt: monthBounds(now).end };
}

function shortfall(account: Account, allowance: ReturnType<typeof allowanceOf>): { ok: false } & QuotaShortfall {
  return {
    ok: false,
    plan: account.plan,
    monthlyMillis: allowance.monthly,
    allowanceLeftMillis: allowance.left,
    balanceMillis: account.balance_millis,
    renewsAt: allowance.renewsAt,
  };
}

export function createCredits(deps: { store: Store; clock: Clock; plans: PlanTable }) {
  const { store, clock, plans } = deps;

  async function lockAccount(trx: Kysely<Database>, accountId: number): Promise<Account> {
    return trx
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .$if(store.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirstOrThrow();
  }

  async function reserve(accountId: number, millis: number): Promise<ReserveResult> {
    return store.transaction(async (trx) => {
      const account = await lockAccount(trx, accountId);
      const allowance = allowanceOf(account, plans, clock.now());
      const fromAllowance = Math.min(millis, allowance.left);
      const fromBalance = millis - fromAllowance;
      if (fromBalance > account.balance_millis) return shortfall(account, allowance);
      await trx
        .updateTable('accounts')
        .set({
          allowance_period: allowance.period,
          allowance_used_millis: allowance.used + fromAllowance,
          balance_millis: account.balance_millis - fromBalance,
        })
        .where('id', '=', accountId)
        .execute();
      return { ok: true as const, reservation: { accountId, period: allowance.period, fromAllowance, fromBalance } };
    });
  }

  /**
   * Turns a reservation into the real charge and writes the ledger row. Charges less than reserved are refunded to
   * where they came from; a charge above the reservation (a fallback to a dearer fetcher) takes what is left and
   * writes off the rest, since the content has already been delivered. Resolves with the millicredits charged.
   */
  async function settle(reservation: Reservation, settlement: Settlement): Promise<number> {
    const { priceMillis, ...row } = settlement;
    return store.transaction(async (trx) => {
      const account = await lockAccount(trx, reservation.accountId);
      const allowance = allowanceOf(account, plans, clock.now());
      const samePeriod = allowance.period === reservation.period;
      const reserved = reservation.fromAllowance + reservation.fromBalance;
      let allowanceDelta: number; // change to allowance used
      let balanceDelta: number; // change to balance
      let charged: number;
      let fromBalance: number;
      if (priceMillis <= reserved) {
        const keepAllowance = Math.min(priceMillis, reservation.fromAllowance);
        const keepBalance = priceMillis - keepAllowance;
        allowanceDelta = samePeriod ? -(reservation.fromAllowance - keepAllowance) : 0;
        balanceDelta = reservation.fromBalance - keepBalance;
        charged = priceMillis;
        fromBalance = keepBalance;
      } else {
        const extra = priceMillis - reserved;
        const extraAllowance = Math.min(extra, allowance.left);
        const extraBalance = Math.min(extra - extraAllowance, account.balance_millis);
        allowanceDelta = extraAllowance;
        balanceDelta = -extraBalance;
        charged = reserved + extraAllowance + extraBalance;
        fromBalance = reservation.fromBalance + extraBalance;
      }
      if (allowanceDelta !== 0 || balanceDelta !== 0) {
        await trx
          .updateTable('accounts')
          .set({
            allowance_period: allowance.period,
            allowance_used_millis: Math.max(0, allowance.used + allowanceDelta),
            balance_millis: account.balance_millis + balanceDelta,
          })
          .where('id', '=', reservation.accountId)
          .execute();
      }
      await trx
        .insertInto('ledger')
        .values({
          ...row,
          account_id: reservation.accountId,
          credits_millis: charged,
          balance_millis: fromBalance,
          at: clock.now(),
        })
        .execute();
      return charged;
    });
  }

  // Rows that charge nothing (anonymous callers, for the metrics) are written in batches: one insert per request
  // made a cached anonymous /fetch cost ~0.38 ms instead of ~0.12 ms.
  let unwritten: NewLedgerRow[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve(); // the last batch write, settled either way, so writes stay in order

  /** Writes every recorded row; resolves when they are in the database, rejects if a batch could not be written. */
  function flushRecords(): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const rows = unwritten;
    unwritten = [];
    const writes: Promise<void>[] = [];
    let from = 0;
    // Postgres takes a batch of any size in one statement (POSTGRES_ARRAYS_INSERT); SQLite prepares one per size.
    const sizes =
      store.dialect === 'postgres'
        ? Array.from({ length: Math.ceil(rows.length / RECORD_BATCH_ROWS) }, () => RECORD_BATCH_ROWS)
        : batchSizes(rows.length);
    for (const size of sizes) {
      const batch = rows.slice(from, (from += size));
      const write = writing.then(() => insertRows(batch));
      writing = write.catch(() => undefined);
      writes.push(write);
    }
    return writes.length > 0 ? Promise.all(writes).then(() => undefined) : writing;
  }

  // The insert's SQL for a number of rows, compiled once per size (batchSizes keeps them few): Kysely's builder took
  // ~2 µs a row to compile the same statement for every batch.
  const insertSql = new Map<number, string>();

  async function insertRows(rows: NewLedgerRow[]): Promise<void> {
    if (store.dialect === 'postgres') return insertArrays(rows);
    let text = insertSql.get(rows.length);
    if (text === undefined) {
      const placeholders = Object.fromEntries(
        LEDGER_COLUMNS.map((column) => [column, null]),
      ) as unknown as NewLedgerRow;
      text = store.db
        .insertInto('ledger')
        .values(rows.map(() => placeholders))
        .compile().sql;
      insertSql.set(rows.length, text);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of LEDGER_COLUMNS) parameters.push(row[column] ?? null);
    await store.db.executeQuery(CompiledQuery.raw(text, parameters));
  }

  /** Postgres takes a batch as one array per column (POSTGRES_ARRAYS_INSERT), whatever its size. */
  async function insertArrays(rows: NewLedgerRow[]): Promise<void> {
    const parameters = LEDGER_COLUMNS.map((column) => rows.map((row) => row[column] ?? null));
    await store.db.executeQuery(CompiledQuery.raw(POSTGRES_ARRAYS_INSERT, parameters));
  }

  /**
   * A ledger row that charges nothing; written within RECORD_FLUSH_MS (see flushRecords). Returns the write of the
   * batch this row completed, if it did; undefined while the row waits for its batch.
   */
  function record(row: Omit<NewLedgerRow, 'at' | 'credits_millis' | 'balance_millis'>): Promise<void> | undefined {
    // Written out rather than spread: `{ ...row, more }` gave every row a map of its own in V8 (~3 µs a row, and
    // slower batches after).
    unwritten.push({
      account_id: row.account_id,
      key_id: row.key_id,
      operation: row.operation,
      fetcher: row.fetcher,
      credits_millis: 0,
      balance_millis: 0,
      cache_hit: row.cache_hit,
      tokens: row.tokens,
      status: row.status,
      url_host: row.url_host,
      duration_ms: row.duration_ms,
      at: clock.now(),
      credited_millis: 0,
      item_key: null,
    });
    if (unwritten.length >= RECORD_BATCH_ROWS) return flushRecords();
    flushTimer ??= setTimeout(() => void flushRecords().catch(() => {}), RECORD_FLUSH_MS).unref();
    return undefined;
  }

  /** Whether the account could pay `millis` now (a read, not a reservation). */
  async function canAfford(
    accountId: number,
    millis: number,
  ): Promise<{ ok: true } | ({ ok: false } & QuotaShortfall)> {
    const account = await store.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const allowance = allowanceOf(account, plans, clock.now());
    if (allowance.left + account.balance_millis >= millis) return { ok: true };
    return shortfall(account, allowance);
  }

  /** Adds prepaid credits (a credit pack). */
  async function addBalance(accountId: number, millis: number): Promise<void> {
    await store.transaction(async (trx) => {
      const account = await lockAccount(trx, accountId);
      await trx
        .updateTable('accounts')
        .set({ balance_millis: account.balance_millis + millis })
        .where('id', '=', accountId)
        .execute();
    });
  }

  async function changePlan(accountId: number, plan: PlanKey): Promise<void> {
    await store.db.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
  }

  return { reserve, settle, record, flushRecords, canAfford, addBalance, changePlan };
}

export type Credits = ReturnType<typeof createCredits>;
