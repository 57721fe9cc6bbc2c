// A subscription's state as the events tell it, applied in the order Stripe created them rather than the order they
// arrive: an event older than the state already stored changes nothing, and an ended subscription stays ended.
import type { Kysely } from 'kysely';
import type { BillingCustomersTable, Database, PlanKey } from '../store/types.js';
import type { PaidPlan } from './catalog.js';
import type { Grants } from '../accounts/credits/grants.js';

/** Statuses in which the subscriber keeps the paid plan (past_due: Stripe is still retrying the payment). */
const LIVE = new Set(['active', 'trialing', 'past_due']);
/** Statuses a subscription never leaves. */
const ENDED = new Set(['canceled', 'incomplete_expired']);

/** Whether the account has a subscription that has not ended (a second one would charge twice). */
export function hasLiveSubscription(
  row: Pick<BillingCustomersTable, 'subscription_id' | 'subscription_status'>,
): boolean {
  return row.subscription_id !== null && !ENDED.has(row.subscription_status ?? '');
}

export interface SubscriptionState {
  id: string;
  status: string;
  /** The plan its price stands for (ignored unless the status is live). */
  plan: PaidPlan | undefined;
  /** When Stripe created the event that reported this state (epoch ms). */
  at: number;
  /** A checkout's report: on a tie it yields to the subscription's own events, which describe it more exactly. */
  fromCheckout: boolean;
}

export type Applied = { applied: true; planChanged: boolean } | { applied: false; reason: string };

export async function applySubscription(
  trx: Kysely<Database>,
  grants: Grants,
  row: BillingCustomersTable,
  state: SubscriptionState,
  now: number,
): Promise<Applied> {
  const stored = row.subscription_event_at;
  if (stored !== null && (state.at < stored || (state.at === stored && state.fromCheckout))) {
    return { applied: false, reason: 'not newer than the subscription state already applied' };
  }
  const live = LIVE.has(state.status);
  if (!live && row.subscription_id !== null && row.subscription_id !== state.id) {
    return {
      applied: false,
      reason: `subscription ${state.id} is not the account's current one (${row.subscription_id})`,
    };
  }
  if (row.subscription_id === state.id && ENDED.has(row.subscription_status ?? '')) {
    return { applied: false, reason: `subscription ${state.id} has already ended` };
  }
  if (live && state.plan === undefined)
    return { applied: false, reason: "the subscription's price is none of the plans" };
  await trx
    .updateTable('billing_customers')
    .set({ subscription_id: state.id, subscription_status: state.status, subscription_event_at: state.at })
    .where('account_id', '=', row.account_id)
    .execute();
  const plan: PlanKey = live ? state.plan! : 'free';
  return { applied: true, planChanged: await grants.changePlan(trx, row.account_id, plan, now) };
}
