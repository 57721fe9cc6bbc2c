// The webhook's guard and its failure modes on every database: a missing, forged or stale signature is 400 and
// changes nothing; a database failure is 500 and Stripe's retry succeeds; events we do not use, or for customers we
// do not know, are 200; without STRIPE_WEBHOOK_SECRET it is 503.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { signUp, withKey } from '../helpers/accounts.js';
import { accountState, billingApp, checkout } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';

const standin = await startStripeStandin();
after(() => standin.close());

for (const backend of DATABASES) {
  describe(`webhook delivery on ${backend.name}`, () => {
    test('missing, forged, stale signatures are 400 and change nothing; the genuine delivery applies', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await checkout(api, withKey(apiKey), 'pack', '10k');
      const event = standin.paidEvent(session.id);
      const refused = [
        await standin.deliver(event, { unsigned: true }),
        await standin.deliver(event, { secret: 'whsec_not_the_endpoint_secret' }),
        await standin.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      ];
      for (const delivery of refused) {
        assert.equal(delivery.status, 400, JSON.stringify(delivery.body));
        assert.equal(delivery.body.code, 'invalid_signature');
      }
      assert.match(refused[0]!.body.detail, /Stripe-Signature/);
      assert.match(refused[2]!.body.detail, /tolerance/i);
      const bodyTampered = await fetch(`${api.base}/billing/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
        },
        body: JSON.stringify(event),
      });
      assert.equal(bodyTampered.status, 400);
      let state = await accountState(api, email);
      assert.equal(state.balanceMillis, 0);
      assert.equal(state.billingRows.length, 0);
      const events = await api.services.store.db.selectFrom('billing_events').selectAll().execute();
      assert.equal(events.length, 0, 'a refused delivery records nothing');
      const genuine = await standin.deliver(event);
      assert.equal(genuine.status, 200);
      assert.equal(genuine.body.outcome, 'applied');
      state = await accountState(api, email);
      assert.equal(state.balanceMillis, 10_000_000);
    });

    test('a delivery whose database write fails is 500 and changes nothing; the retry credits once', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await checkout(api, withKey(apiKey), 'pack', '10k');
      const event = standin.paidEvent(session.id);
      // The ledger insert comes after the balance update in the same transaction: both must roll back.
      const db = api.services.store.db;
      await sql`alter table ledger rename to ledger_unavailable`.execute(db);
      const failed = await standin.deliver(event);
      await sql`alter table ledger_unavailable rename to ledger`.execute(db);
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
      assert.equal(failed.body.code, 'internal_error');
      assert.equal((await accountState(api, email)).balanceMillis, 0);
      const retried = await standin.deliver(event);
      assert.equal(retried.status, 200);
      assert.equal(retried.body.outcome, 'applied');
      assert.equal((await standin.deliver(event)).body.outcome, 'duplicate');
      const state = await accountState(api, email);
      assert.equal(state.balanceMillis, 10_000_000);
      assert.equal(state.billingRows.length, 1);
    });

    test('unknown event types and unknown customers answer 200 and change nothing', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const unknownType = await standin.deliver(
        standin.event('invoice.paid', { id: 'in_test_1', object: 'invoice', livemode: false }),
      );
      assert.equal(unknownType.status, 200);
      assert.equal(unknownType.body.outcome, 'ignored');
      const stranger = await standin.deliver(
        standin.event('checkout.session.completed', {
          id: 'cs_test_stranger',
          object: 'checkout.session',
          livemode: false,
          mode: 'payment',
          payment_status: 'paid',
          customer: 'cus_test_someone_else',
          client_reference_id: '1',
          metadata: { item_key: '1m' },
        }),
      );
      assert.equal(stranger.status, 200);
      assert.equal(stranger.body.outcome, 'ignored');
      const rows = await api.services.store.db
        .selectFrom('billing_events')
        .select(['type', 'outcome'])
        .orderBy('received_at')
        .execute();
      assert.equal(rows.length, 2);
      assert.match(rows.map((r) => r.outcome).join('\n'), /not used[\s\S]*not one of ours/);
    });
  });
}

test('without STRIPE_WEBHOOK_SECRET the webhook is 503 naming the variable; checkout still works', async (t) => {
  const api = await billingApp(t, DATABASES[0]!, standin, { STRIPE_WEBHOOK_SECRET: '' });
  if (!api) return;
  const delivery = await standin.deliver(standin.event('invoice.paid', { id: 'in_test_2', object: 'invoice' }));
  assert.equal(delivery.status, 503);
  assert.equal(delivery.body.code, 'billing_not_configured');
  assert.match(delivery.body.detail, /STRIPE_WEBHOOK_SECRET/);
  const { apiKey } = await signUp(api);
  await checkout(api, withKey(apiKey), 'pack', '10k');
});
