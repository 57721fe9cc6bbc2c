// The billing operations behind /billing: a Stripe Checkout for a credit pack or a plan, the Billing Portal of an
// account, and the Stripe events that pay for them. How each is done with Stripe is src/billing/'s.
import { ITEMS_BY_MODE, type Billing } from '../billing/index.js';

export type { CheckoutMode } from '../billing/index.js';

export function createBillingOperations(deps: { billing: Billing }) {
  const { billing } = deps;
  return {
    /** The item keys each checkout mode takes: the packs' for `pack`, the paid plans' for `subscription`. */
    itemsByMode: ITEMS_BY_MODE,
    /** The 503 a billing route answers while the server's Stripe settings are missing; undefined once it can work. */
    unavailable: billing.unavailable,
    startCheckout: billing.startCheckout,
    openPortal: billing.openPortal,
    /** Verifies a Stripe event against its signature and applies it exactly once. */
    receiveWebhook: billing.receiveWebhook,
  };
}

export type BillingOperations = ReturnType<typeof createBillingOperations>;
