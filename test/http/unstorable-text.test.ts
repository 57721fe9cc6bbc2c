// A NUL character (U+0000) that Postgres cannot store, in a path and in a signed webhook's payload: the caller's 400
// with the usual error shape on every database, never a 500 (found by the route fuzz on Postgres).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { stripeEnv } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { signPayload, startStripeStandin } from '../helpers/stripe-standin.js';
import { appOnDatabase } from '../helpers/test-app.js';

for (const backend of DATABASES) {
  test(`on ${backend.name}, NUL in a crawl id or a webhook's customer is a 4xx, never a 500`, async (t) => {
    const stripe = await startStripeStandin();
    t.after(() => stripe.close());
    const api = await appOnDatabase(t, backend, stripeEnv(stripe));
    if (!api) return;
    const { apiKey } = await signUp(api);
    for (const path of ['/crawl/a%00b', '/crawl/a%00b/errors']) {
      const res = await api.request('GET', path, undefined, withKey(apiKey));
      assert.ok([400, 404].includes(res.status), `${path}: ${res.status} ${res.text}`);
      assert.equal(typeof res.body.detail, 'string');
      assert.ok(res.body.request_id);
    }
    const event = JSON.stringify({
      id: 'evt_nul_1',
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'cs_nul', object: 'checkout.session', customer: 'cus_\u0000x', client_reference_id: '1' } },
    });
    const res = await api.request('POST', '/billing/webhook', event, {
      'content-type': 'application/json',
      'stripe-signature': signPayload(event, stripe.webhookSecret, Math.floor(Date.now() / 1000)),
    });
    assert.ok(res.status < 500, `webhook: ${res.status} ${res.text}`);
  });
}
