// /billing: Stripe Checkout for packs and plans and the Billing Portal (session cookie or X-Service-Key), and the
// webhook Stripe delivers events to (the raw body, signature-checked): each a call into the billing operations.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../../errors.js';
import type { Account } from '../../operations/accounts.js';
import { checkApiKey, presentedKey } from '../auth.js';
import { CheckoutBody, CheckoutSession, PortalSession, WebhookReceived } from '../../contract/billing.js';
import { ErrorResponse } from '../../contract/fetch.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';
import { readCookie, refuseCrossSite, SESSION_COOKIE } from '../session.js';

const TAGS = ['billing'];

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /billing/checkout and /billing/portal: the account paying. */
    billingAccount: Account;
  }
}

/** The account of an X-Service-Key (scripts), else of the session cookie (the dashboard, with the cross-site check). */
async function authenticate(deps: AppDeps, request: FastifyRequest): Promise<Account> {
  const key = presentedKey(request);
  if (key !== undefined) return (await checkApiKey(deps, request, key)).account;
  if (request.method === 'POST') refuseCrossSite(request, deps.config.PUBLIC_BASE_URL);
  const check = await deps.operations.accounts.verifySession(readCookie(request, SESSION_COOKIE));
  if (!check.ok) {
    throw new AppError(
      'invalid_session',
      'sign in first (POST /auth/login), or send an API key in the X-Service-Key header',
    );
  }
  return check.account;
}

/** Adds the responses every authenticated billing route can give to its /openapi.json entry. */
function documentAuth(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema ?? {};
    const response = { ...((schema.response as Record<number, unknown>) ?? {}) };
    for (const status of [401, 403, 502, 503]) response[status] ??= Type.Ref(ErrorResponse);
    route.schema = {
      ...schema,
      response,
      security: [{ SessionCookie: [] }, { ServiceKey: [] }],
    };
  });
}

export const billingRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const billing = deps.operations.billing;

  await app.register(async (instance) => {
    documentAuth(instance);
    instance.addHook('onRequest', async (request) => {
      const unavailable = billing.unavailable('checkout');
      if (unavailable) throw unavailable;
      request.billingAccount = await authenticate(deps, request);
    });
    const paying = instance.withTypeProvider<TypeBoxTypeProvider>();

    paying.post(
      '/billing/checkout',
      {
        schema: {
          summary: 'Start a Stripe Checkout for a credit pack or a plan',
          description:
            `mode pack takes item_key ${billing.itemsByMode.pack.join(', ')}; ` +
            `mode subscription takes ${billing.itemsByMode.subscription.join(', ')} ` +
            '(another pair is a 422 at ["body", "item_key"]). Answers the URL of the hosted checkout page; the ' +
            'credits or the plan arrive with the webhook once the payment succeeds. An account that already has a ' +
            'subscription gets 409 and changes its plan in the portal (GET /billing/portal). Authenticated by the ' +
            'service_session cookie or X-Service-Key.',
          tags: TAGS,
          body: CheckoutBody,
          response: responses(CheckoutSession, [409]),
        },
      },
      async (request) => {
        const { mode, item_key: itemKey } = request.body;
        const allowed = billing.itemsByMode[mode];
        if (!allowed.includes(itemKey)) {
          throw ValidationError.single(
            ['body', 'item_key'],
            `mode "${mode}" takes item_key ${allowed.join(', ')}; "${itemKey}" belongs to the other mode`,
          );
        }
        return billing.startCheckout(request.billingAccount, mode, itemKey);
      },
    );

    paying.get(
      '/billing/portal',
      {
        schema: {
          summary: "Open Stripe's Billing Portal for the account",
          description:
            'Invoices, the payment method, plan changes and cancellation, on Stripe; it returns to /dashboard. An ' +
            'account that has not paid for anything yet is 404 no_billing_account. Authenticated by the ' +
            'service_session cookie or X-Service-Key.',
          tags: TAGS,
          response: responses(PortalSession, [404]),
        },
      },
      async (request) => billing.openPortal(request.billingAccount),
    );
  });

  await app.register(async (hook) => {
    // The signature covers the exact bytes Stripe sent: this scope keeps every body raw.
    hook.removeAllContentTypeParsers();
    hook.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    hook.post(
      '/billing/webhook',
      {
        schema: {
          summary: 'Receive Stripe events',
          description:
            'For Stripe (or `stripe listen --forward-to`) only: the raw body is verified against the ' +
            'Stripe-Signature header with STRIPE_WEBHOOK_SECRET (300 s tolerance); a missing, bad or stale ' +
            'signature is 400 and changes nothing. Acts on checkout.session.completed, ' +
            'checkout.session.async_payment_succeeded and customer.subscription.created/updated/deleted, each ' +
            'exactly once; other events answer 200 and are logged. A database failure answers 500 so Stripe retries.',
          tags: TAGS,
          response: {
            200: WebhookReceived,
            400: Type.Ref(ErrorResponse),
            500: Type.Ref(ErrorResponse),
            503: Type.Ref(ErrorResponse),
          },
        },
      },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const result = await billing.receiveWebhook(body, Array.isArray(signature) ? signature[0] : signature);
        request.log.info(
          {
            event_id: result.eventId,
            type: result.type,
            outcome: result.outcome,
            reason: result.reason,
            account_id: result.accountId,
          },
          'stripe event',
        );
        return { received: true as const, event_id: result.eventId, type: result.type, outcome: result.outcome };
      },
    );
  });
};
