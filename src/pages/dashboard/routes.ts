// GET /dashboard (the account, keys, connected applications, usage, crawls, billing) and the forms it posts
// (/dashboard/*): sign-in by e-mail, keys, disconnecting an application, checkout and portal, the playground,
// sign-out. Forms work without JavaScript; every POST passes the cross-site check of the cookie-authenticated routes.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { acceptForms, field } from '../forms.js';
import type { AppDeps } from '../../http/app-deps.js';
import { sendPage } from '../layout.js';
import { dashboardPage, type DashboardData, type DashboardExtras } from './account-view.js';
import { apiClientFor, detailOf, type ApiAnswer, type ApiClient } from './api-client.js';
import { checkMailPage, signInPage } from './sign-in-view.js';

const PRIVATE = { 'cache-control': 'no-store' };
/** The playground shows at most this much of a page, so its answer stays a page, not a download. */
const PLAYGROUND_MAX_TOKENS = 3000;

/** Outcomes a redirect back to /dashboard reports (?notice=…): fixed texts, never text from the request. */
const NOTICES: Record<string, DashboardExtras['notice']> = {
  revoked: { text: 'The key is revoked: requests with it are refused from now on.' },
  disconnected: { text: 'The application is disconnected: its requests are refused from now on.' },
  'signed-out': { text: 'You are signed out.' },
  // Stripe's Checkout returns here (?checkout=success|cancelled); the credits come with its webhook, within seconds.
  'checkout-success': {
    text: 'Thank you: the payment went through. Credits and plans are added as soon as Stripe confirms it.',
  },
  'checkout-cancelled': { text: 'Checkout was cancelled; nothing was charged.' },
};

type Form = Record<string, string | undefined>;

/** An answer meaning this server takes no payments: 503 billing_not_configured, or no billing routes at all. */
const billingMissing = (answer: ApiAnswer) =>
  answer.status === 503 || (answer.status === 404 && answer.body?.code !== 'no_billing_account');

const BILLING_NOT_CONFIGURED =
  'Billing is not configured on this server, so credits and plans cannot be bought here. ' +
  '(Operators: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET.)';

export const dashboardRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  const base = deps.config.PUBLIC_BASE_URL;

  acceptForms(app, deps.config.PUBLIC_BASE_URL);

  async function load(api: ApiClient, reply: FastifyReply): Promise<DashboardData | undefined> {
    const who = await api('GET', '/auth/whoami');
    if (who.setCookie) void reply.header('set-cookie', who.setCookie);
    if (!who.body?.account) return undefined;
    const answers = await Promise.all([
      api('GET', '/auth/keys'),
      api('GET', '/auth/usage'),
      api('GET', '/auth/crawls'),
      api('GET', '/auth/apps'),
    ]);
    if (answers.some((answer) => answer.status !== 200)) return undefined;
    const [keys, usage, crawls, apps] = answers;
    return {
      account: who.body.account,
      keys: keys.body,
      usage: usage.body,
      crawls: crawls.body,
      apps: apps.body.apps,
      billing: Boolean(deps.config.STRIPE_SECRET_KEY),
    };
  }

  /** The dashboard for this visitor: the account page with a session, else the sign-in form. */
  async function show(request: FastifyRequest, reply: FastifyReply, extras: DashboardExtras = {}) {
    const data = await load(apiClientFor(app, request), reply);
    if (!data) return sendPage(reply, signInPage(base, extras.notice?.text), 200, PRIVATE);
    return sendPage(reply, dashboardPage(base, data, extras), 200, PRIVATE);
  }

  const back = (reply: FastifyReply, notice?: string) =>
    reply
      .code(303)
      .header('location', notice ? `/dashboard?notice=${notice}` : '/dashboard')
      .send();
  const failed = (request: FastifyRequest, reply: FastifyReply, text: string) =>
    show(request, reply, { notice: { text, error: true } });

  app.get(
    '/dashboard',
    {
      schema: {
        tags: ['pages'],
        summary: 'The dashboard: sign-in form, or the account, keys, connected applications, usage and billing',
      },
    },
    async (request, reply) => {
      const query = request.query as Form;
      const notice = query.notice ?? (query.checkout && `checkout-${query.checkout}`);
      return show(request, reply, { notice: notice && Object.hasOwn(NOTICES, notice) ? NOTICES[notice] : undefined });
    },
  );

  app.post('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const api = apiClientFor(app, request);
    const email = field(request, 'email');
    // Sign-up answers the same for new and known addresses; a known one is sent a sign-in link, a new one its key.
    const signup = await api('POST', '/account/signup', { body: { email } });
    if (signup.status !== 200)
      return sendPage(reply, signInPage(base, detailOf(signup)), signup.status === 429 ? 429 : 422, PRIVATE);
    if (signup.body.api_key !== null) await api('POST', '/auth/login', { body: { email } });
    return sendPage(reply, checkMailPage(base, email), 200, PRIVATE);
  });

  app.post('/dashboard/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const out = await apiClientFor(app, request)('POST', '/auth/logout');
    if (out.setCookie) void reply.header('set-cookie', out.setCookie);
    return back(reply, 'signed-out');
  });

  app.post('/dashboard/keys', { schema: { hide: true } }, async (request, reply) => {
    const label = field(request, 'label') || 'dashboard';
    const created = await apiClientFor(app, request)('POST', `/auth/keys?label=${encodeURIComponent(label)}`);
    if (created.status !== 200) return failed(request, reply, `The key could not be created: ${detailOf(created)}`);
    const apiKey: string = created.body.api_key;
    return show(request, reply, { newKey: { apiKey, label: created.body.key.label }, playgroundKey: apiKey });
  });

  /** A form that ends one of the account's things (DELETE `${resource}/:id`), then goes back with a notice. */
  function endingForm(path: string, resource: string, notice: string, failure: string) {
    app.post<{ Params: { id: string } }>(path, { schema: { hide: true } }, async (request, reply) => {
      const ended = await apiClientFor(app, request)('DELETE', `${resource}/${encodeURIComponent(request.params.id)}`);
      if (ended.status !== 200) return failed(request, reply, `${failure}: ${detailOf(ended)}`);
      return back(reply, notice);
    });
  }
  endingForm('/dashboard/keys/:id/revoke', '/auth/keys', 'revoked', 'The key could not be revoked');
  endingForm(
    '/dashboard/apps/:id/disconnect',
    '/auth/apps',
    'disconnected',
    'The application could not be disconnected',
  );

  app.post('/dashboard/checkout', { schema: { hide: true } }, async (request, reply) => {
    const body = { mode: field(request, 'mode'), item_key: field(request, 'item_key') };
    const checkout = await apiClientFor(app, request)('POST', '/billing/checkout', { body });
    if (checkout.status === 200 && typeof checkout.body?.url === 'string')
      return reply.code(303).header('location', checkout.body.url).send();
    return failed(
      request,
      reply,
      billingMissing(checkout) ? BILLING_NOT_CONFIGURED : `Checkout could not start: ${detailOf(checkout)}`,
    );
  });

  app.post('/dashboard/portal', { schema: { hide: true } }, async (request, reply) => {
    const portal = await apiClientFor(app, request)('GET', '/billing/portal');
    if (portal.status === 200 && typeof portal.body?.url === 'string')
      return reply.code(303).header('location', portal.body.url).send();
    return failed(request, reply, billingMissing(portal) ? BILLING_NOT_CONFIGURED : detailOf(portal));
  });

  app.post('/dashboard/playground', { schema: { hide: true } }, async (request, reply) => {
    const url = field(request, 'url');
    const apiKey = field(request, 'api_key');
    const api = apiClientFor(app, request);
    // The playground is part of the signed-in dashboard: nothing is fetched for a visitor without a session.
    if (!(await api('GET', '/auth/whoami')).body?.account) return show(request, reply);
    const fetched = await api('POST', '/fetch', {
      body: { url, max_tokens: PLAYGROUND_MAX_TOKENS },
      apiKey,
    });
    const b = fetched.body;
    const playground =
      fetched.status === 200
        ? {
            url,
            ok: {
              title: b.metadata.title,
              markdown: b.markdown,
              token_count: b.metadata.token_count,
              fetcher: b.fetch_info.fetcher_used,
              credits: b.credits,
            },
          }
        : { url, error: `HTTP ${fetched.status}: ${detailOf(fetched)}` };
    return show(request, reply, { playground, playgroundKey: apiKey });
  });
};
