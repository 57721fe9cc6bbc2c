// What can be bought and how it maps to Stripe: packs (inline prices, from src/pricing.ts) and plans (Stripe Prices
// found by lookup key fetchdown_<plan> or named by STRIPE_PRICE_<PLAN>), and the plan a subscription's price means.
import type Stripe from 'stripe';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { CREDIT_PACKS, PLANS, type CreditPack, type Plan } from '../pricing.js';
import { callStripe } from './stripe-client.js';

export type PaidPlan = Exclude<Plan['key'], 'free'>;
export type CheckoutMode = 'pack' | 'subscription';

export const PAID_PLANS = PLANS.filter((plan): plan is Plan & { key: PaidPlan } => plan.key !== 'free');

/** The item keys each checkout mode takes. */
export const ITEMS_BY_MODE: Readonly<Record<CheckoutMode, readonly string[]>> = Object.freeze({
  pack: CREDIT_PACKS.map((pack) => pack.key),
  subscription: PAID_PLANS.map((plan) => plan.key),
});

export const findPack = (key: string | undefined): CreditPack | undefined =>
  CREDIT_PACKS.find((pack) => pack.key === key);
export const findPaidPlan = (key: string | undefined) => PAID_PLANS.find((plan) => plan.key === key);

export const lookupKeyOf = (plan: PaidPlan) => `fetchdown_${plan}`;

export type PriceConfig = Pick<Config, 'STRIPE_PRICE_STARTER' | 'STRIPE_PRICE_PRO' | 'STRIPE_PRICE_SCALE'>;

function configuredPriceIds(config: PriceConfig): Partial<Record<PaidPlan, string>> {
  return { starter: config.STRIPE_PRICE_STARTER, pro: config.STRIPE_PRICE_PRO, scale: config.STRIPE_PRICE_SCALE };
}

export function createPlanPrices(stripe: Stripe, config: PriceConfig) {
  const configured = configuredPriceIds(config);
  const found = new Map<PaidPlan, string>(); // lookup-key results, kept for the life of the process

  /** The Stripe Price id a plan's checkout uses. */
  async function priceIdFor(plan: PaidPlan): Promise<string> {
    const id = configured[plan] ?? found.get(plan);
    if (id !== undefined) return id;
    const lookupKey = lookupKeyOf(plan);
    const list = await callStripe('find the plan price', () =>
      stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 }),
    );
    const price = list.data[0];
    if (price === undefined) {
      throw new AppError(
        'billing_not_configured',
        `no active Stripe Price has the lookup key ${lookupKey}: ` +
          `run \`fetchdown stripe-setup\` once, or set STRIPE_PRICE_${plan.toUpperCase()}`,
      );
    }
    found.set(plan, price.id);
    return price.id;
  }

  /** The plan a subscription's price stands for: a configured price id, else its lookup key; undefined if neither. */
  function planOfPrice(price: Pick<Stripe.Price, 'id' | 'lookup_key'> | undefined): PaidPlan | undefined {
    if (price === undefined) return undefined;
    for (const plan of PAID_PLANS) {
      if (configured[plan.key] === price.id || lookupKeyOf(plan.key) === price.lookup_key) return plan.key;
    }
    return undefined;
  }

  return { priceIdFor, planOfPrice };
}

export type PlanPrices = ReturnType<typeof createPlanPrices>;
