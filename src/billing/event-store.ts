// The ids of the Stripe events and checkout sessions already applied. Each is claimed inside the transaction of its
// effect: a second delivery (a replay, a retry, the same event at the same moment on another process) finds the claim
// and does nothing. On Postgres a concurrent claim waits for the first transaction and then sees its row.
import type { Kysely } from 'kysely';
import type { Database } from '../store/types.js';

/** True when this transaction now owns the event; false when it was applied before. */
export async function claimEvent(
  trx: Kysely<Database>,
  event: { id: string; type: string },
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('billing_events')
    .values({ event_id: event.id, type: event.type, account_id: null, outcome: 'pending', received_at: now })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .execute();
  return inserted.length > 0;
}

export async function recordOutcome(
  trx: Kysely<Database>,
  eventId: string,
  accountId: number | null,
  outcome: string,
): Promise<void> {
  await trx
    .updateTable('billing_events')
    .set({ account_id: accountId, outcome })
    .where('event_id', '=', eventId)
    .execute();
}

/** True when this checkout session's payment is now being applied; false when an earlier event applied it. */
export async function claimCheckout(
  trx: Kysely<Database>,
  checkout: { sessionId: string; accountId: number; mode: string; itemKey: string },
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('billing_checkouts')
    .values({
      session_id: checkout.sessionId,
      account_id: checkout.accountId,
      mode: checkout.mode,
      item_key: checkout.itemKey,
      at: now,
    })
    .onConflict((oc) => oc.column('session_id').doNothing())
    .returning('session_id')
    .execute();
  return inserted.length > 0;
}
