// What a payment does to an account, inside the webhook's transaction: a pack adds to the prepaid balance, a plan
// change moves the plan; each writes its ledger row in the same transaction, with the account row locked.
import type { Kysely } from 'kysely';
import { MILLICREDITS_PER_CREDIT, type CreditPack } from '../pricing.js';
import type { Dialect } from '../store/db.js';
import { BILLING_OPERATIONS, type Account, type Database, type NewLedgerRow, type PlanKey } from '../store/types.js';

function lockAccount(trx: Kysely<Database>, dialect: Dialect, accountId: number): Promise<Account> {
  return trx
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', accountId)
    .$if(dialect === 'postgres', (q) => q.forUpdate())
    .executeTakeFirstOrThrow();
}

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
  };
}

export async function creditPack(
  trx: Kysely<Database>,
  dialect: Dialect,
  accountId: number,
  pack: CreditPack,
  at: number,
): Promise<void> {
  const account = await lockAccount(trx, dialect, accountId);
  const millis = pack.credits * MILLICREDITS_PER_CREDIT;
  await trx
    .updateTable('accounts')
    .set({ balance_millis: account.balance_millis + millis })
    .where('id', '=', accountId)
    .execute();
  await trx
    .insertInto('ledger')
    .values({ ...billingRow(accountId, 'credit_pack', pack.key, at), credited_millis: millis })
    .execute();
}

/** Moves the account to `plan`; false (and no ledger row) when it is on that plan already. */
export async function changePlan(
  trx: Kysely<Database>,
  dialect: Dialect,
  accountId: number,
  plan: PlanKey,
  at: number,
): Promise<boolean> {
  const account = await lockAccount(trx, dialect, accountId);
  if (account.plan === plan) return false;
  await trx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
  await trx
    .insertInto('ledger')
    .values(billingRow(accountId, 'plan_change', plan, at))
    .execute();
  return true;
}
