// POST /billing/checkout and GET /billing/portal over HTTP on every database: what Stripe is asked for, one customer
// per account, the session cookie (with its cross-site check) or X-Service-Key, and each refusal: 401, 403, 404,
// 422 for a mode and item that do not pair, 502 when Stripe refuses, 503 without configuration.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signIn, signUp, withKey } from '../helpers/accounts.js';
import { billingApp, checkout } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';
import { buildTestApp } from '../helpers/test-app.js';

const standin = await startStripeStandin();
standin.seedPlanPrices();
const smtp = await startSmtpServer();
after(() => Promise.all([standin.close(), smtp.close()]));

const sessionsAsked = () => standin.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');

for (const backend of DATABASES) {
  describe(`checkout and portal on ${backend.name}`, () => {
    test('a pack checkout asks Stripe for the right session under one customer, by cookie or key', async (t) => {
      const api = await billingApp(t, backend, standin, {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://fetchdown.test',
      });
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);
      const customersBefore = standin.customers.size;
      const byCookie = await checkout(api, { cookie }, 'pack', '10k');
      assert.match(byCookie.id, /^cs_test_/);
      assert.equal(byCookie.url, `${standin.apiBase}/pay/${byCookie.id}`);
      const asked = sessionsAsked().at(-1)!.params;
      const account = await api.services.store.db
        .selectFrom('accounts')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(asked.mode, 'payment');
      assert.equal(asked.client_reference_id, String(account.id));
      assert.deepEqual(asked.metadata, { account_id: String(account.id), mode: 'pack', item_key: '10k' });
      assert.equal(asked.line_items[0].price_data.unit_amount, '1000');
      assert.equal(asked.line_items[0].price_data.currency, 'usd');
      assert.equal(asked.line_items[0].price_data.product_data.name, '10,000 Fetchdown credits');
      assert.equal(
        asked.success_url,
        'http://fetchdown.test/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}',
      );
      assert.equal(asked.cancel_url, 'http://fetchdown.test/dashboard?checkout=cancelled');

      const byKey = await checkout(api, withKey(apiKey), 'pack', '1m');
      assert.equal(sessionsAsked().at(-1)!.params.line_items[0].price_data.unit_amount, '60000');
      assert.equal(standin.customers.size, customersBefore + 1, 'the customer is created once and remembered');
      assert.equal(standin.sessions.get(byKey.id)!.customer, standin.sessions.get(byCookie.id)!.customer);
      const created = standin.requests.filter((r) => r.path === '/v1/customers').at(-1)!;
      assert.equal(created.params.email, email);
      assert.match(created.idempotencyKey ?? '', new RegExp(`^fetchdown-customer-${account.id}-`));

      const portal = await api.request('GET', '/billing/portal', undefined, { cookie });
      assert.equal(portal.status, 404, 'a checkout started but never paid is no billing account yet');
      assert.equal(portal.body.code, 'no_billing_account');
      assert.match(portal.body.detail, /POST \/billing\/checkout/);
    });

    test('five checkouts at once by a new account share one Stripe customer', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const sessions = await Promise.all(
        Array.from({ length: 5 }, () => checkout(api, withKey(apiKey), 'pack', '10k')),
      );
      const customerIds = new Set(sessions.map((s) => standin.sessions.get(s.id)!.customer));
      assert.equal(customerIds.size, 1);
      assert.equal([...standin.customers.values()].filter((c) => c.email === email).length, 1);
      const rows = await api.services.store.db.selectFrom('billing_customers').selectAll().execute();
      assert.deepEqual(
        rows.map((r) => r.customer_id),
        [...customerIds],
      );
    });

    test('authentication: none or a bad key is 401, a cross-site cookie POST is 403', async (t) => {
      const api = await billingApp(t, backend, standin, { SMTP_URL: smtp.url });
      if (!api) return;
      const none = await api.post('/billing/checkout', { mode: 'pack', item_key: '10k' });
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'invalid_session');
      const badKey = await api.request(
        'GET',
        '/billing/portal',
        undefined,
        withKey('fd_live_not_a_real_key_at_all_000000000000'),
      );
      assert.equal(badKey.status, 401);
      assert.equal(badKey.body.code, 'invalid_api_key');
      const { email } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);
      const crossSite = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'pack', item_key: '10k' },
        { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      );
      assert.equal(crossSite.status, 403);
      assert.equal(crossSite.body.code, 'cross_site_request');
    });

    test('a mode and an item that do not pair are 422 at ["body", "item_key"] naming the allowed keys', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { apiKey } = await signUp(api);
      const asked = sessionsAsked().length;
      const packPlan = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'pack', item_key: 'pro' },
        withKey(apiKey),
      );
      assert.equal(packPlan.status, 422);
      assert.deepEqual(packPlan.body.detail[0].loc, ['body', 'item_key']);
      assert.match(packPlan.body.detail[0].msg, /mode "pack" takes item_key 10k, 100k, 1m/);
      const planPack = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'subscription', item_key: '10k' },
        withKey(apiKey),
      );
      assert.equal(planPack.status, 422);
      assert.deepEqual(planPack.body.detail[0].loc, ['body', 'item_key']);
      assert.match(planPack.body.detail[0].msg, /starter, pro, scale/);
      const unknown = await api.request('POST', '/billing/checkout', { mode: 'pack', item_key: '5k' }, withKey(apiKey));
      assert.equal(unknown.status, 422);
      assert.deepEqual(unknown.body.detail[0].loc.slice(0, 2), ['body', 'item_key']);
      assert.equal(sessionsAsked().length, asked, 'nothing was asked of Stripe');
    });

    test('Stripe refusing is 502 billing_provider_error; a configured STRIPE_PRICE_PRO is used as it is', async (t) => {
      const api = await billingApp(t, backend, standin, {
        STRIPE_PRICE_PRO: [...standin.prices.values()].find((p) => p.lookup_key === 'fetchdown_scale')!.id,
      });
      if (!api) return;
      const { apiKey } = await signUp(api);
      standin.failNext('POST', '/v1/checkout/sessions', 400, {
        type: 'invalid_request_error',
        message: 'The customer has been deleted.',
      });
      const refused = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'pack', item_key: '100k' },
        withKey(apiKey),
      );
      assert.equal(refused.status, 502, refused.text);
      assert.equal(refused.body.code, 'billing_provider_error');
      assert.match(refused.body.detail, /The customer has been deleted/);
      const lookups = standin.requests.filter((r) => r.path === '/v1/prices').length;
      await checkout(api, withKey(apiKey), 'subscription', 'pro');
      const asked = sessionsAsked().at(-1)!.params;
      assert.equal(
        standin.prices.get(asked.line_items[0].price)!.lookup_key,
        'fetchdown_scale',
        'the configured price id, as it is',
      );
      assert.equal(
        standin.requests.filter((r) => r.path === '/v1/prices').length,
        lookups,
        'no lookup for a configured price',
      );
    });
  });
}

test('without STRIPE_SECRET_KEY every billing route is 503 naming the variables; the rest works', async (t) => {
  const api = await buildTestApp(t);
  const { apiKey } = await signUp(api);
  for (const [method, path] of [
    ['POST', '/billing/checkout'],
    ['GET', '/billing/portal'],
    ['POST', '/billing/webhook'],
  ] as const) {
    const res = await api.request(
      method,
      path,
      method === 'POST' ? { mode: 'pack', item_key: '10k' } : undefined,
      withKey(apiKey),
    );
    assert.equal(res.status, 503, `${method} ${path}: ${res.text}`);
    assert.equal(res.body.code, 'billing_not_configured');
    // Names what to set once, and where the set-up is written down.
    assert.match(
      res.body.detail,
      /^billing is not configured on this server: set STRIPE_SECRET_KEY \(the Stripe set-up:/,
    );
    assert.equal(res.body.detail.match(/STRIPE_SECRET_KEY/g).length, 1, res.body.detail);
  }
  assert.equal((await api.request('GET', '/account/me', undefined, withKey(apiKey))).status, 200);
});

test('a plan without a Stripe price is 503 saying to run fetchdown stripe-setup', async (t) => {
  const bare = await startStripeStandin();
  t.after(() => bare.close());
  const api = await billingApp(t, DATABASES[0]!, bare);
  if (!api) return;
  const { apiKey } = await signUp(api);
  const res = await api.request(
    'POST',
    '/billing/checkout',
    { mode: 'subscription', item_key: 'starter' },
    withKey(apiKey),
  );
  assert.equal(res.status, 503, res.text);
  assert.equal(res.body.code, 'billing_not_configured');
  assert.match(res.body.detail, /fetchdown_starter.*fetchdown stripe-setup.*STRIPE_PRICE_STARTER/);
});
