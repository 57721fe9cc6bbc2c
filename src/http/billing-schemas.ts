// Request and response schemas of the /billing routes (validation, serialisation, /openapi.json).
import { Type, type Static } from '@sinclair/typebox';
import { ITEMS_BY_MODE } from '../billing/index.js';
import { StringEnum } from './schemas.js';

const MODES = ['pack', 'subscription'] as const;

export const CheckoutBody = Type.Object(
  {
    mode: StringEnum(MODES, { description: 'pack: a one-time credit pack; subscription: a monthly plan.' }),
    item_key: StringEnum([...ITEMS_BY_MODE.pack, ...ITEMS_BY_MODE.subscription], {
      description:
        `With mode pack: ${ITEMS_BY_MODE.pack.join(', ')} (credits). ` +
        `With mode subscription: ${ITEMS_BY_MODE.subscription.join(', ')}.`,
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
