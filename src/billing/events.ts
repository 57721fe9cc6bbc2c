// The Stripe events Fetchdown acts on, each applied once in one transaction with its claim (event-store.ts):
// a paid checkout credits a pack or starts a plan; a subscription's updates and deletion move the plan.
import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Grants } from '../accounts/credits/grants.js';
import { MILLICREDITS_PER_CREDIT } from '../pricing.js';
import type { Store } from '../store/db.js';
import type { Database } from '../store/types.js';
import { findPack, findPaidPlan, type PlanPrices } from './catalog.js';
import { claimCheckout, claimEvent, recordOutcome } from './event-store.js';
import { applySubscription } from './subscriptions.js';

export interface EventOutcome {
  outcome: 'applied' | 'ignored' | 'duplicate';
  /** Why an event changed nothing. */
  reason?: string;
  accountId?: number;
}

type Handler = (trx: Kysely<Database>, event: Stripe.Event) => Promise<EventOutcome>;

const ignored = (reason: string, accountId?: number): EventOutcome => ({ outcome: 'ignored', reason, accountId });
const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);

/** Payment states in which a checkout's goods are delivered. */
const SETTLED = new Set(['paid', 'no_payment_required']);

export function createEventHandlers(deps: { store: Store; grants: Grants; prices: PlanPrices; now(): number }) {
  const { store, grants, prices, now } = deps;

  const customerRow = (trx: Kysely<Database>, customerId: string | undefined) =>
    customerId === undefined
      ? Promise.resolve(undefined)
      : trx.selectFrom('billing_customers').selectAll().where('customer_id', '=', customerId).executeTakeFirst();

  const checkoutPaid: Handler = async (trx, event) => {
    const session = event.data.object as Stripe.Checkout.Session;
    const row = await customerRow(trx, idOf(session.customer));
    if (!row) return ignored(`customer ${idOf(session.customer) ?? '(none)'} is not one of ours`);
    const claimed = session.client_reference_id ?? session.metadata?.account_id;
    if (claimed !== undefined && claimed !== null && claimed !== String(row.account_id)) {
      return ignored(`the session names account ${claimed} but its customer belongs to account ${row.account_id}`);
    }
    if (!SETTLED.has(session.payment_status)) {
      return ignored(`payment_status is ${session.payment_status}: credited when the payment succeeds`, row.account_id);
    }
    const itemKey = session.metadata?.item_key ?? '';
    const pack = session.mode === 'payment' ? findPack(itemKey) : undefined;
    const plan = session.mode === 'subscription' ? findPaidPlan(itemKey) : undefined;
    if (!pack && !plan) return ignored(`checkout for an unknown item (${session.mode} ${itemKey})`, row.account_id);
    const checkout = { sessionId: session.id, accountId: row.account_id, mode: session.mode, itemKey };
    if (!(await claimCheckout(trx, checkout, now())))
      return ignored(`checkout session ${session.id} was applied before`, row.account_id);
    if (row.paid_at === null)
      await trx
        .updateTable('billing_customers')
        .set({ paid_at: now() })
        .where('account_id', '=', row.account_id)
        .execute();
    if (pack) {
      await grants.addCredits(trx, {
        accountId: row.account_id,
        millis: pack.credits * MILLICREDITS_PER_CREDIT,
        operation: 'credit_pack',
        itemKey: pack.key,
        at: now(),
      });
      return { outcome: 'applied', accountId: row.account_id };
    }
    const subscription = idOf(session.subscription);
    if (subscription === undefined) return ignored('a subscription checkout without a subscription', row.account_id);
    const state = { id: subscription, status: 'active', plan: plan!.key, at: event.created * 1000, fromCheckout: true };
    const result = await applySubscription(trx, grants, row, state, now());
    // The payment is recorded either way; a newer subscription event may already have set the plan.
    return result.applied ? { outcome: 'applied', accountId: row.account_id } : ignored(result.reason, row.account_id);
  };

  const subscriptionChanged =
    (deleted: boolean): Handler =>
    async (trx, event) => {
      const subscription = event.data.object as Stripe.Subscription;
      const row = await customerRow(trx, idOf(subscription.customer));
      if (!row) return ignored(`customer ${idOf(subscription.customer) ?? '(none)'} is not one of ours`);
      const state = {
        id: subscription.id,
        status: deleted ? 'canceled' : subscription.status,
        plan: prices.planOfPrice(subscription.items?.data[0]?.price),
        at: event.created * 1000,
        fromCheckout: false,
      };
      const result = await applySubscription(trx, grants, row, state, now());
      return result.applied
        ? { outcome: 'applied', accountId: row.account_id }
        : ignored(result.reason, row.account_id);
    };

  const HANDLERS: Partial<Record<string, Handler>> = {
    'checkout.session.completed': checkoutPaid,
    'checkout.session.async_payment_succeeded': checkoutPaid,
    'customer.subscription.created': subscriptionChanged(false),
    'customer.subscription.updated': subscriptionChanged(false),
    'customer.subscription.deleted': subscriptionChanged(true),
  };

  /** Applies a verified event exactly once; a database failure throws, so Stripe retries the delivery. */
  return async function handleEvent(event: Stripe.Event): Promise<EventOutcome> {
    return store.transaction(async (trx) => {
      if (!(await claimEvent(trx, event, now()))) return { outcome: 'duplicate' as const };
      const handler = HANDLERS[event.type];
      const result = handler ? await handler(trx, event) : ignored(`event type ${event.type} is not used`);
      await recordOutcome(
        trx,
        event.id,
        result.accountId ?? null,
        result.reason ? `ignored: ${result.reason}` : result.outcome,
      );
      return result;
    });
  };
}
