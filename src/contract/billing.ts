// Request and response schemas of the /billing routes (validation, serialisation, /openapi.json).
import { Type, type Static } from '@sinclair/typebox';
import { CREDIT_PACKS, PLANS } from '../pricing.js';
import { StringEnum } from './fetch.js';

const MODES = ['pack', 'subscription'] as const;
const PACK_KEYS = CREDIT_PACKS.map((pack) => pack.key);
const PLAN_KEYS = PLANS.filter((plan) => plan.key !== 'free').map((plan) => plan.key);

export const CheckoutBody = Type.Object(
  {
    mode: StringEnum(MODES, { description: 'pack: a one-time credit pack; subscription: a monthly plan.' }),
    item_key: StringEnum([...PACK_KEYS, ...PLAN_KEYS], {
      description:
        `With mode pack: ${PACK_KEYS.join(', ')} (credits). ` + `With mode subscription: ${PLAN_KEYS.join(', ')}.`,
    }),
  },
  { additionalProperties: false, examples: [{ mode: 'pack', item_key: '10k' }] },
);
export type CheckoutBody = Static<typeof CheckoutBody>;

export const CheckoutSession = Type.Object({
  url: Type.String({ format: 'uri', description: "Stripe's hosted checkout page: send the buyer there." }),
  id: Type.String({ description: 'The Checkout Session id (cs_…).' }),
});

export const PortalSession = Type.Object({
  url: Type.String({
    format: 'uri',
    description: "Stripe's hosted Billing Portal for this account: invoices, payment method, plan changes.",
  }),
});

export const WebhookReceived = Type.Object({
  received: Type.Literal(true),
  event_id: Type.String(),
  type: Type.String(),
  outcome: StringEnum(['applied', 'ignored', 'duplicate'] as const, {
    description:
      'applied: the event changed the account; ignored: nothing to do (logged why); duplicate: applied before.',
  }),
});
