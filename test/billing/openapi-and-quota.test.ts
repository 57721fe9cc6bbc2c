// The billing routes in /openapi.json (valid OpenAPI 3.1, with their security and shapes), and the 402 a caller
// out of credits gets: the routes it names exist, and buying a pack through them lets the next fetch through.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { signUp, withKey } from '../helpers/accounts.js';
import { billingApp, checkout } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';

const standin = await startStripeStandin();
const site = await startFixtureSite();
after(() => Promise.all([standin.close(), site.close()]));

test('/openapi.json describes the billing routes and stays valid OpenAPI 3.1', async (t) => {
  const api = await billingApp(t, DATABASES[0]!, standin);
  if (!api) return;
  const doc = (await api.get('/openapi.json')).body;
  const either = [{ SessionCookie: [] }, { ServiceKey: [] }];
  const checkoutOp = doc.paths['/billing/checkout'].post;
  assert.deepEqual(checkoutOp.security, either);
  assert.deepEqual(doc.paths['/billing/portal'].get.security, either);
  const body = checkoutOp.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required.sort(), ['item_key', 'mode']);
  assert.deepEqual(body.properties.mode.enum, ['pack', 'subscription']);
  assert.deepEqual(body.properties.item_key.enum, ['10k', '100k', '1m', 'starter', 'pro', 'scale']);
  assert.deepEqual(Object.keys(checkoutOp.responses['200'].content['application/json'].schema.properties).sort(), [
    'id',
    'url',
  ]);
  for (const status of ['401', '403', '409', '422', '502', '503'])
    assert.ok(checkoutOp.responses[status], `checkout documents ${status}`);
  assert.ok(doc.paths['/billing/portal'].get.responses['404']);
  const webhook = doc.paths['/billing/webhook'].post;
  assert.match(webhook.description, /Stripe-Signature/);
  assert.ok(webhook.responses['400'] && webhook.responses['500']);
  const result = await new Validator().validate(structuredClone(doc));
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
});

test('/spec tells agents how to buy, with the prices of src/pricing.ts', async (t) => {
  const api = await billingApp(t, DATABASES[0]!, standin);
  if (!api) return;
  const spec = (await api.get('/spec')).body;
  assert.equal(spec.billing.enabled, true);
  assert.match(spec.billing.checkout, /POST \/billing\/checkout/);
  assert.deepEqual(
    spec.pricing.packs.map((p: { item_key: string; price_usd: number }) => [p.item_key, p.price_usd]),
    [
      ['10k', 10],
      ['100k', 80],
      ['1m', 600],
    ],
  );
  assert.deepEqual(
    spec.pricing.plans.map((p: { item_key: string; price_usd_per_month: number }) => [
      p.item_key,
      p.price_usd_per_month,
    ]),
    [
      ['free', 0],
      ['starter', 29],
      ['pro', 99],
      ['scale', 399],
    ],
  );
});

for (const backend of DATABASES) {
  describe(`out of credits on ${backend.name}`, () => {
    test('the 402 names routes that exist; a pack bought through them lets the fetch through', async (t) => {
      const api = await billingApp(t, backend, standin, {
        FREE_MONTHLY_CREDITS: '0',
        PUBLIC_BASE_URL: 'http://fetchdown.test',
      });
      if (!api) return;
      const { apiKey } = await signUp(api);
      const url = site.url(`/unique/quota-${process.pid}-${Date.now()}`);
      const refused = await api.request('POST', '/fetch', { url }, withKey(apiKey));
      assert.equal(refused.status, 402);
      assert.equal(refused.body.code, 'quota_exceeded');
      assert.match(refused.body.detail, /POST \/billing\/checkout/);
      assert.equal(refused.body.upgrade_url, 'http://fetchdown.test/dashboard');

      const session = await checkout(api, withKey(apiKey), 'pack', '10k');
      await standin.pay(session.id);
      const served = await api.request('POST', '/fetch', { url }, withKey(apiKey));
      assert.equal(served.status, 200, served.text);
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(me.body.balance_credits, 9_999);
    });
  });
}

test('the 402 upgrade_url (/dashboard) is served', async (t) => {
  const api = await billingApp(t, DATABASES[0]!, standin);
  if (!api) return;
  const page = await api.get('/dashboard');
  // The dashboard page belongs to the web pages (issue 12), merged separately from billing.
  if (page.status === 404)
    return t.skip('GET /dashboard is not on this branch: it comes with the web pages (issue 12)');
  assert.equal(page.status, 200);
});
