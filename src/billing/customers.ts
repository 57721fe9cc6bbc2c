// Each account's Stripe customer: created at its first checkout and remembered, so every payment of an account is
// under one customer (one portal, one history). The idempotency key makes a concurrent second checkout reuse it.
import type Stripe from 'stripe';
import type { Store } from '../store/db.js';
import type { Account } from '../store/types.js';
import { callStripe } from './stripe-client.js';

export function createCustomers(deps: { stripe: Stripe; store: Store; now(): number }) {
  const { stripe, store, now } = deps;

  const customerOf = (accountId: number) =>
    store.db.selectFrom('billing_customers').selectAll().where('account_id', '=', accountId).executeTakeFirst();

  /** The account's Stripe customer id, creating the customer the first time. */
  async function ensureCustomer(account: Account): Promise<string> {
    const known = await customerOf(account.id);
    if (known) return known.customer_id;
    const customer = await callStripe('create the Stripe customer', () =>
      stripe.customers.create(
        { email: account.email, metadata: { account_id: String(account.id) } },
        // Account ids repeat across databases (tests, a restored backup); with created_at the key names this account.
        { idempotencyKey: `fetchdown-customer-${account.id}-${account.created_at}` },
      ),
    );
    await store.db
      .insertInto('billing_customers')
      .values({ account_id: account.id, customer_id: customer.id, created_at: now() })
      // No conflict target: two concurrent first checkouts insert the same account and the same customer, and on
      // Postgres the loser may trip the customer_id index rather than the account_id one; either means it is there.
      .onConflict((oc) => oc.doNothing())
      .execute();
    return (await customerOf(account.id))!.customer_id;
  }

  return { customerOf, ensureCustomer };
}

export type Customers = ReturnType<typeof createCustomers>;
