// The transactions that move credits between an account row and its leases: take (or grow) a lease, return what a
// lease did not spend, reclaim a dead holder's lease. Each locks the account row once; nothing else here commits.
import type { Kysely } from 'kysely';
import type { Store } from '../../store/db.js';
import type { Account, CreditLease, Database, NewLedgerRow, PlanKey } from '../../store/types.js';
import { monthBounds, monthOf } from '../clock.js';
import type { PlanTable } from '../plans.js';
import type { LedgerWriter } from './ledger-writer.js';

export interface QuotaShortfall {
  plan: PlanKey;
  /** The plan's allowance counts fetches (one credit a page), not the price list. */
  countsFetches: boolean;
  monthlyMillis: number;
  allowanceLeftMillis: number;
  balanceMillis: number;
  /** When the monthly allowance starts again (epoch ms). */
  renewsAt: number;
}

/** The allowance state of an account row as of `now`: a row from an older month has used nothing of this one. */
export function allowanceOf(
  account: Pick<Account, 'plan' | 'allowance_period' | 'allowance_used_millis'>,
  plans: PlanTable,
  now: number,
) {
  const period = monthOf(now);
  const used = account.allowance_period === period ? account.allowance_used_millis : 0;
  const { monthlyMillis: monthly, countsFetches } = plans[account.plan];
  return { period, used, monthly, countsFetches, left: Math.max(0, monthly - used), renewsAt: monthBounds(now).end };
}

export function shortfallOf(
  account: Pick<Account, 'plan' | 'balance_millis'>,
  allowance: ReturnType<typeof allowanceOf>,
): { ok: false } & QuotaShortfall {
  return {
    ok: false,
    plan: account.plan,
    countsFetches: allowance.countsFetches,
    monthlyMillis: allowance.monthly,
    allowanceLeftMillis: allowance.left,
    balanceMillis: account.balance_millis,
    renewsAt: allowance.renewsAt,
  };
}

/**
 * The account row, locked for a change of its money until the transaction ends. FOR NO KEY UPDATE, not FOR UPDATE: a
 * ledger insert takes FOR KEY SHARE on the row its account_id references, and a process writing its batch must not
 * wait for (or deadlock with) one that is taking a lease. Every transaction here locks the account before its leases.
 */
export function lockAccount(trx: Kysely<Database>, store: Store, accountId: number): Promise<Account> {
  return trx
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', accountId)
    .$if(store.dialect === 'postgres', (q) => q.forNoKeyUpdate())
    .executeTakeFirstOrThrow();
}

/** Postgres's deadlock_detected: one of two transactions is cancelled, and trying it again succeeds. */
const DEADLOCK = '40P01';

/** Runs a transaction again when Postgres cancelled it to break a deadlock (rare: locks are taken in one order). */
async function retryDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK || attempt >= 3) throw error;
    }
  }
}

export interface Taken {
  ok: true;
  period: string;
  /** The account's plan's allowance counts fetches (the free tier). */
  countsFetches: boolean;
  allowance: number;
  balance: number;
}

/** Splits a charged row into the part the allowance paid and the part the balance paid. */
const partsOf = (row: Pick<NewLedgerRow, 'credits_millis' | 'balance_millis'>) => ({
  allowance: Number(row.credits_millis ?? 0) - Number(row.balance_millis ?? 0),
  balance: Number(row.balance_millis ?? 0),
});

export function createLeaseStore(deps: { store: Store; plans: PlanTable; writer: LedgerWriter }) {
  const { store, plans, writer } = deps;

  /**
   * Takes at least `need` and at most `want` millicredits (allowance first) into lease `id`, creating it or adding to
   * it; a lease of an older month takes from the balance only. A shortfall when the account has less than `need`
   * outside its leases.
   */
  async function take(input: {
    id: string;
    accountId: number;
    holder: string;
    need: number;
    /** The need instead when the plan's allowance counts fetches and covers it (a new lease's plan is unknown). */
    needCounted?: number;
    want: number;
    /** The month of the lease when it exists already; undefined: a new lease. */
    period: string | undefined;
    /** Take what there is when it is less than `need` (a charge above its hold, for content already delivered). */
    partial?: boolean;
    now: number;
    expiresAt: number;
  }): Promise<Taken | ({ ok: false } & QuotaShortfall)> {
    return retryDeadlock(() =>
      store.transaction(async (trx) => {
        const account = await lockAccount(trx, store, input.accountId);
        const allowance = allowanceOf(account, plans, input.now);
        const period = input.period ?? allowance.period;
        const allowanceLeft = period === allowance.period ? allowance.left : 0;
        const counted = input.needCounted ?? input.need;
        const need = allowance.countsFetches && allowanceLeft >= counted ? counted : input.need;
        // A lease takes a share of what is left, so other processes of the account find credit too.
        const available = allowanceLeft + account.balance_millis;
        if (available < need && !(input.partial && available > 0)) return shortfallOf(account, allowance);
        const size = Math.min(available, Math.max(need, Math.min(input.want, Math.floor(available / 4))));
        const fromAllowance = Math.min(size, allowanceLeft);
        const fromBalance = size - fromAllowance;
        await trx
          .updateTable('accounts')
          .set({
            allowance_period: allowance.period,
            allowance_used_millis: allowance.used + fromAllowance,
            balance_millis: account.balance_millis - fromBalance,
          })
          .where('id', '=', input.accountId)
          .execute();
        if (input.period === undefined) {
          await trx
            .insertInto('credit_leases')
            .values({
              id: input.id,
              account_id: input.accountId,
              holder: input.holder,
              period,
              allowance_millis: fromAllowance,
              balance_millis: fromBalance,
              spent_allowance_millis: 0,
              spent_balance_millis: 0,
              expires_at: input.expiresAt,
              recalled_at: null,
            })
            .execute();
        } else {
          const grown = await trx
            .updateTable('credit_leases')
            .set((eb) => ({
              allowance_millis: eb('allowance_millis', '+', fromAllowance),
              balance_millis: eb('balance_millis', '+', fromBalance),
              expires_at: input.expiresAt,
            }))
            .where('id', '=', input.id)
            .executeTakeFirst();
          // Reclaimed meanwhile (its holder was cut off for longer than a lease lives): undo, and take no more into it.
          if (Number(grown.numUpdatedRows) === 0) throw new LeaseGone(input.id);
        }
        const { countsFetches } = plans[account.plan];
        return { ok: true as const, period, countsFetches, allowance: fromAllowance, balance: fromBalance };
      }),
    );
  }

  /** Gives what a deleted lease row did not spend back to its account (locked first), in the deleting transaction. */
  async function giveBack(trx: Kysely<Database>, account: Account, lease: CreditLease, now: number): Promise<void> {
    const unspentAllowance = Math.max(0, lease.allowance_millis - lease.spent_allowance_millis);
    const unspentBalance = Math.max(0, lease.balance_millis - lease.spent_balance_millis);
    if (unspentAllowance === 0 && unspentBalance === 0) return;
    const allowance = allowanceOf(account, plans, now);
    // An older month's allowance is gone with that month.
    const sameMonth = lease.period === allowance.period;
    await trx
      .updateTable('accounts')
      .set({
        allowance_period: allowance.period,
        allowance_used_millis: Math.max(0, allowance.used - (sameMonth ? unspentAllowance : 0)),
        balance_millis: account.balance_millis + unspentBalance,
      })
      .where('id', '=', lease.account_id)
      .execute();
  }

  /** The holder's return of a lease whose spending is all in the ledger: false when it had been reclaimed. */
  async function giveUp(id: string, accountId: number, now: number): Promise<boolean> {
    return retryDeadlock(() =>
      store.transaction(async (trx) => {
        const account = await lockAccount(trx, store, accountId);
        const lease = await trx.deleteFrom('credit_leases').where('id', '=', id).returningAll().executeTakeFirst();
        if (lease) await giveBack(trx, account, lease, now);
        return lease !== undefined;
      }),
    );
  }

  /**
   * A lease past its expiry, whose holder died: its journal's rows that the ledger lacks are written and count as
   * spent, the rest goes back. False when someone else got to it first (or its holder was only late, and wrote).
   */
  async function reclaim(
    lease: Pick<CreditLease, 'id' | 'account_id'>,
    journal: readonly NewLedgerRow[],
    now: number,
    /** Whether it may be unexpired: the holder is known dead (this process's predecessor). */
    dead = false,
  ): Promise<boolean> {
    return retryDeadlock(() =>
      store.transaction(async (trx) => {
        const account = await lockAccount(trx, store, lease.account_id);
        const expired = await trx
          .deleteFrom('credit_leases')
          .where('id', '=', lease.id)
          .$if(!dead, (q) => q.where('expires_at', '<', now))
          .returningAll()
          .executeTakeFirst();
        if (!expired) return false;
        for (const row of await writer.insertNew(trx, journal)) {
          const parts = partsOf(row);
          expired.spent_allowance_millis += parts.allowance;
          expired.spent_balance_millis += parts.balance;
        }
        await giveBack(trx, account, expired, now);
        return true;
      }),
    );
  }

  /**
   * Rows of a lease that was reclaimed while its holder was cut off: those the reclaim did not find in the journal are
   * charged to the account directly, as far as it can pay (the answers were delivered).
   */
  async function chargeDirectly(trx: Kysely<Database>, rows: readonly NewLedgerRow[], now: number): Promise<void> {
    for (const row of await writer.insertNew(trx, rows)) {
      const parts = partsOf(row);
      const account = await lockAccount(trx, store, row.account_id!);
      const allowance = allowanceOf(account, plans, now);
      const fromAllowance = Math.min(parts.allowance, allowance.left);
      await trx
        .updateTable('accounts')
        .set({
          allowance_period: allowance.period,
          allowance_used_millis: allowance.used + fromAllowance,
          balance_millis: Math.max(0, account.balance_millis - parts.balance - (parts.allowance - fromAllowance)),
        })
        .where('id', '=', row.account_id!)
        .execute();
    }
  }

  /**
   * The journal of a dead predecessor's lease: reclaimed at once when the lease is still there; when another process
   * reclaimed it meanwhile (without this machine's file), the rows it did not write are charged directly.
   */
  async function settleJournal(id: string, journal: readonly NewLedgerRow[], now: number): Promise<void> {
    const lease = await store.db
      .selectFrom('credit_leases')
      .select(['id', 'account_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (lease && (await reclaim(lease, journal, now, true))) return;
    if (journal.length > 0) await retryDeadlock(() => store.transaction((trx) => chargeDirectly(trx, journal, now)));
  }

  /** What the leases of an account hold and have not spent (as of their holders' last writes), this month. */
  async function unspent(accountId: number, period: string): Promise<{ allowance: number; balance: number }> {
    const rows = await store.db.selectFrom('credit_leases').selectAll().where('account_id', '=', accountId).execute();
    let allowance = 0;
    let balance = 0;
    for (const lease of rows) {
      if (lease.period === period) allowance += Math.max(0, lease.allowance_millis - lease.spent_allowance_millis);
      balance += Math.max(0, lease.balance_millis - lease.spent_balance_millis);
    }
    return { allowance, balance };
  }

  /** Asks the other holders of an account's leases to return them; true when any may hold credit. */
  async function recall(accountId: number, holder: string, now: number): Promise<boolean> {
    const others = await store.db
      .updateTable('credit_leases')
      .set({ recalled_at: now })
      .where('account_id', '=', accountId)
      .where('holder', '!=', holder)
      .where((eb) =>
        eb(
          eb('allowance_millis', '+', eb.ref('balance_millis')),
          '>',
          eb('spent_allowance_millis', '+', eb.ref('spent_balance_millis')),
        ),
      )
      .executeTakeFirst();
    return Number(others.numUpdatedRows) > 0;
  }

  return { take, giveUp, reclaim, settleJournal, chargeDirectly, unspent, recall };
}

/** A lease that another process reclaimed: its holder takes a new one. */
export class LeaseGone extends Error {
  constructor(id: string) {
    super(`credit lease ${id} was reclaimed`);
  }
}

export type LeaseStore = ReturnType<typeof createLeaseStore>;
