// Checkout and the portal: a Stripe Checkout Session for a pack (payment mode, inline price) or a plan (subscription
// mode, the plan's Stripe Price) under the account's customer, and a Billing Portal session to manage what was bought.
import type Stripe from 'stripe';
import { AppError } from '../errors.js';
import type { Account } from '../store/types.js';
import { findPack, findPaidPlan, type CheckoutMode, type PlanPrices } from './catalog.js';
import type { Customers } from './customers.js';
import { callStripe } from './stripe-client.js';
import { hasLiveSubscription } from './subscriptions.js';

export interface CheckoutDeps {
  stripe: Stripe;
  customers: Customers;
  prices: PlanPrices;
  publicBaseUrl: string;
}

export function createCheckout(deps: CheckoutDeps) {
  const { stripe, customers, prices } = deps;
  const dashboard = `${deps.publicBaseUrl.replace(/\/$/, '')}/dashboard`;

  function lineItem(
    mode: CheckoutMode,
    itemKey: string,
  ): Promise<Stripe.Checkout.SessionCreateParams.LineItem> | Stripe.Checkout.SessionCreateParams.LineItem {
    if (mode === 'subscription')
      return prices.priceIdFor(findPaidPlan(itemKey)!.key).then((price) => ({ price, quantity: 1 }));
    const pack = findPack(itemKey)!;
    return {
      quantity: 1,
      price_data: {
        currency: 'usd',
        unit_amount: pack.priceCents,
        product_data: {
          name: `${pack.credits.toLocaleString('en-US')} Fetchdown credits`,
          description: 'Prepaid credits; they never expire.',
        },
      },
    };
  }

  /** A Checkout Session for an item its mode takes (the caller has checked the pair); 409 for a second plan. */
  async function startCheckout(
    account: Account,
    mode: CheckoutMode,
    itemKey: string,
  ): Promise<{ url: string; id: string }> {
    if (mode === 'subscription') {
      const known = await customers.customerOf(account.id);
      if (known && hasLiveSubscription(known)) {
        throw new AppError(
          'subscription_exists',
          `this account already has a subscription (${known.subscription_status}); ` +
            'change or cancel its plan in the billing portal: GET /billing/portal',
          { extra: { portal: '/billing/portal' } },
        );
      }
    }
    const item = await lineItem(mode, itemKey);
    const customer = await customers.ensureCustomer(account);
    const metadata = { account_id: String(account.id), mode, item_key: itemKey };
    const session = await callStripe('start the checkout', () =>
      stripe.checkout.sessions.create({
        mode: mode === 'pack' ? 'payment' : 'subscription',
        customer,
        client_reference_id: String(account.id),
        metadata,
        line_items: [item],
        ...(mode === 'pack' ? { payment_intent_data: { metadata } } : { subscription_data: { metadata } }),
        success_url: `${dashboard}?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${dashboard}?checkout=cancelled`,
      }),
    );
    if (!session.url) throw new AppError('billing_provider_error', 'Stripe created a checkout session without a URL');
    return { url: session.url, id: session.id };
  }

  /** A Billing Portal session for the account's customer; 404 before the account has paid for anything. */
  async function openPortal(account: Account): Promise<{ url: string }> {
    const known = await customers.customerOf(account.id);
    if (!known || known.paid_at === null) {
      throw new AppError(
        'no_billing_account',
        'this account has not bought anything yet, so there is no billing to manage: buy a credit pack or a plan ' +
          'first (POST /billing/checkout)',
      );
    }
    const session = await callStripe('open the billing portal', () =>
      stripe.billingPortal.sessions.create({ customer: known.customer_id, return_url: dashboard }),
    );
    return { url: session.url };
  }

  return { startCheckout, openPortal };
}
