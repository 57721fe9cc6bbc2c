// The operator's `fetchdown stripe-setup`: the plans' Stripe products and monthly prices, made or checked in the
// account of STRIPE_SECRET_KEY (src/billing/setup.ts). A missing key or Stripe's refusal is a value the CLI reports.
import Stripe from 'stripe';
import { setUpStripe, type SetupResult } from '../billing/setup.js';
import { createStripeClient } from '../billing/stripe-client.js';
import type { Config } from '../config.js';

export type { SetupResult } from '../billing/setup.js';

export type StripeSetup =
  | { ok: true; plans: SetupResult[] }
  | { ok: false; reason: 'no_secret_key' }
  | { ok: false; reason: 'refused'; detail: string };

export async function setUpStripePlans(
  config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE'>,
): Promise<StripeSetup> {
  if (config.STRIPE_SECRET_KEY === undefined) return { ok: false, reason: 'no_secret_key' };
  try {
    const stripe = createStripeClient(config.STRIPE_SECRET_KEY, config.STRIPE_API_BASE);
    return { ok: true, plans: await setUpStripe(stripe) };
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    return { ok: false, reason: 'refused', detail: error.message };
  }
}
