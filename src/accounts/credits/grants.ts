// Credits and plans given to an account: a new account (free, nothing in it), a pack bought (inside the billing
// webhook's transaction), an operator's grant, a plan change. Each change writes its ledger row in the transaction
// that makes it.
import type { Kysely } from 'kysely';
import type { Store } from '../../store/db.js';
import type { BILLING_OPERATIONS, Database, NewLedgerRow, PlanKey } from '../../store/types.js';
import { lockAccount } from './leases.js';

function billingRow(
  accountId: number,
  operation: (typeof BILLING_OPERATIONS)[number],
  itemKey: string,
  at: number,
): NewLedgerRow {
  return {
    account_id: accountId,
    key_id: null,
    operation,
    fetcher: null,
    credits_millis: 0,
    balance_millis: 0,
    cache_hit: 0,
    tokens: 0,
    status: 'ok',
    url_host: null,
    duration_ms: 0,
    at,
    item_key: itemKey,
    request_id: null,
  };
}

export function createGrants(store: Store) {
  /** A new account for `email`, on the free plan with nothing used or bought; undefined when it exists already. */
  async function openAccount(trx: Kysely<Database>, email: string, at: number): Promise<number | undefined> {
    const created = await trx
      .insertInto('accounts')
      .values({
        email,
        plan: 'free',
        balance_millis: 0,
        allowance_period: '',
        allowance_used_millis: 0,
        created_at: at,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .returning('id')
      .executeTakeFirst();
    return created?.id;
  }

  /** Adds `millis` to the prepaid balance: a pack bought (`credit_pack`, its key) or an operator's `credit_grant`. */
  async function addCredits(
    trx: Kysely<Database>,
    grant: {
      accountId: number;
      millis: number;
      operation: 'credit_pack' | 'credit_grant';
      itemKey: string;
      at: number;
    },
  ): Promise<void> {
    const account = await lockAccount(trx, store, grant.accountId);
    await trx
      .updateTable('accounts')
      .set({ balance_millis: account.balance_millis + grant.millis })
      .where('id', '=', grant.accountId)
      .execute();
    await trx
      .insertInto('ledger')
      .values({
        ...billingRow(grant.accountId, grant.operation, grant.itemKey, grant.at),
        credited_millis: grant.millis,
      })
      .execute();
  }

  /**
   * Moves the account to `plan`; false (and no ledger row) when it is on that plan already. Its leases, taken under
   * the old plan's rules, are recalled: their holders return them at their next write.
   */
  async function changePlan(trx: Kysely<Database>, accountId: number, plan: PlanKey, at: number): Promise<boolean> {
    const account = await lockAccount(trx, store, accountId);
    if (account.plan === plan) return false;
    await trx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
    await trx.updateTable('credit_leases').set({ recalled_at: at }).where('account_id', '=', accountId).execute();
    await trx
      .insertInto('ledger')
      .values(billingRow(accountId, 'plan_change', plan, at))
      .execute();
    return true;
  }

  return { openAccount, addCredits, changePlan };
}

export type Grants = ReturnType<typeof createGrants>;
