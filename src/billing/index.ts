// Billing through Stripe, built from the config: Checkout for packs and plans, the Billing Portal, and the webhook
// that applies payments. Without STRIPE_SECRET_KEY (or, for the webhook, STRIPE_WEBHOOK_SECRET) each part is a 503.
import type { Grants } from '../accounts/credits/grants.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/db.js';
import type { Account } from '../store/types.js';
import { createPlanPrices, type CheckoutMode } from './catalog.js';
import { createCheckout } from './checkout.js';
import { createCustomers } from './customers.js';
import { createEventHandlers, type EventOutcome } from './events.js';
import { createStripeClient } from './stripe-client.js';
import { verifyEvent } from './webhook.js';

export { ITEMS_BY_MODE, type CheckoutMode } from './catalog.js';

export type BillingConfig = Pick<
  Config,
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_API_BASE'
  | 'STRIPE_PRICE_STARTER'
  | 'STRIPE_PRICE_PRO'
  | 'STRIPE_PRICE_SCALE'
  | 'PUBLIC_BASE_URL'
>;

export interface Billing {
  /** The 503 a billing route answers while its variables are unset; undefined once it can work. */
  unavailable(part: 'checkout' | 'webhook'): AppError | undefined;
  startCheckout(account: Account, mode: CheckoutMode, itemKey: string): Promise<{ url: string; id: string }>;
  openPortal(account: Account): Promise<{ url: string }>;
  receiveWebhook(
    rawBody: Buffer,
    signature: string | undefined,
  ): Promise<EventOutcome & { eventId: string; type: string }>;
}

function notConfigured(missing: string[]): AppError {
  return new AppError(
    'billing_not_configured',
    `billing is not configured on this server: set ${missing.join(' and ')} ` +
      '(the Stripe set-up: docs/operations.md, "Billing with Stripe: set-up")',
  );
}

export function createBilling(
  config: BillingConfig,
  deps: { store: Store; grants: Grants; now(): number; planChanged(accountId: number): Promise<void> },
): Billing {
  const secretKey = config.STRIPE_SECRET_KEY;
  const webhookSecret = config.STRIPE_WEBHOOK_SECRET;
  if (secretKey === undefined) {
    const error = notConfigured(['STRIPE_SECRET_KEY']);
    const refuse = () => Promise.reject(error);
    return { unavailable: () => error, startCheckout: refuse, openPortal: refuse, receiveWebhook: refuse };
  }
  const stripe = createStripeClient(secretKey, config.STRIPE_API_BASE);
  const prices = createPlanPrices(stripe, config);
  const customers = createCustomers({ stripe, store: deps.store, now: deps.now });
  const checkout = createCheckout({ stripe, customers, prices, publicBaseUrl: config.PUBLIC_BASE_URL });
  const handleEvent = createEventHandlers({ store: deps.store, grants: deps.grants, prices, now: deps.now });
  const webhookError = webhookSecret === undefined ? notConfigured(['STRIPE_WEBHOOK_SECRET']) : undefined;

  return {
    unavailable: (part) => (part === 'webhook' ? webhookError : undefined),
    startCheckout: checkout.startCheckout,
    openPortal: checkout.openPortal,
    async receiveWebhook(rawBody, signature) {
      if (webhookSecret === undefined) throw notConfigured(['STRIPE_WEBHOOK_SECRET']);
      const event = verifyEvent(stripe, webhookSecret, rawBody, signature);
      const outcome = await handleEvent(event);
      // A plan may have changed: the account's kept keys (which carry it, for rate limits) go in every process.
      if (outcome.outcome === 'applied' && outcome.accountId !== undefined) await deps.planChanged(outcome.accountId);
      return { eventId: event.id, type: event.type, ...outcome };
    },
  };
}
