// `fetchdown stripe-setup`: creates the plans' Products and monthly Prices, with the lookup keys checkout finds them
// by (fetchdown_starter…), in the Stripe account of STRIPE_SECRET_KEY. Idempotent: a plan whose price exists at the
// amount of src/pricing.ts is left alone; one whose amount changed gets a new Price that takes over the lookup key.
import Stripe from 'stripe';
import { PAID_PLANS, lookupKeyOf, type PaidPlan } from './catalog.js';

export interface SetupResult {
  plan: PaidPlan;
  lookupKey: string;
  priceId: string;
  action: 'exists' | 'created' | 'replaced';
}

async function ensureProduct(stripe: Stripe, plan: (typeof PAID_PLANS)[number]): Promise<string> {
  const productId = lookupKeyOf(plan.key);
  try {
    return (await stripe.products.retrieve(productId)).id;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing')) throw error;
  }
  const name = `Fetchdown ${plan.key[0]!.toUpperCase()}${plan.key.slice(1)}`;
  const description = `${plan.monthlyCredits.toLocaleString('en-US')} credits a month`;
  return (await stripe.products.create({ id: productId, name, description, metadata: { fetchdown_plan: plan.key } }))
    .id;
}

export async function setUpStripe(stripe: Stripe): Promise<SetupResult[]> {
  const results: SetupResult[] = [];
  for (const plan of PAID_PLANS) {
    const lookupKey = lookupKeyOf(plan.key);
    const existing = (await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })).data[0];
    const current =
      existing?.unit_amount === plan.priceCentsPerMonth &&
      existing.currency === 'usd' &&
      existing.recurring?.interval === 'month';
    if (existing && current) {
      results.push({ plan: plan.key, lookupKey, priceId: existing.id, action: 'exists' });
      continue;
    }
    const price = await stripe.prices.create({
      product: await ensureProduct(stripe, plan),
      currency: 'usd',
      unit_amount: plan.priceCentsPerMonth,
      recurring: { interval: 'month' },
      lookup_key: lookupKey,
      transfer_lookup_key: existing !== undefined,
      nickname: `${plan.key} monthly`,
      metadata: { fetchdown_plan: plan.key },
    });
    results.push({ plan: plan.key, lookupKey, priceId: price.id, action: existing ? 'replaced' : 'created' });
  }
  return results;
}
