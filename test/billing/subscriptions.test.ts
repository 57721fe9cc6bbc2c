// Plans over HTTP on every database: a subscription checkout sets the plan, the portal's changes move it, deletion
// returns to free, events arriving out of order end in the right plan, and a second subscription is refused (409).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { accountState, billingApp, checkout } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';
import type { TestApp } from '../helpers/test-app.js';

const standin = await startStripeStandin();
standin.seedPlanPrices();
after(() => standin.close());

const plansOf = (state: Awaited<ReturnType<typeof accountState>>) => state.billingRows.map((row) => row.item_key);

async function subscribe(api: TestApp, apiKey: string, plan: string) {
  const session = await checkout(api, withKey(apiKey), 'subscription', plan);
  const recorded = standin.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
  assert.equal(recorded.params.mode, 'subscription');
  assert.equal(
    recorded.params.line_items[0].price,
    [...standin.prices.values()].find((p) => p.lookup_key === `fetchdown_${plan}`)!.id,
  );
  return session;
}

for (const backend of DATABASES) {
  describe(`plans on ${backend.name}`, () => {
    test('subscribe, change tier, delete: starter → pro → free, a ledger row each; a second plan is 409', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await subscribe(api, apiKey, 'starter');
      const deliveries = await standin.pay(session.id);
      assert.deepEqual(
        deliveries.map((d) => d.status),
        [200, 200],
      );
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(me.body.plan, 'starter');
      assert.equal(me.body.monthly_credits, 20_000);

      const second = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'subscription', item_key: 'pro' },
        withKey(apiKey),
      );
      assert.equal(second.status, 409, second.text);
      assert.equal(second.body.code, 'subscription_exists');
      assert.match(second.body.detail, /GET \/billing\/portal/);
      const portal = await api.request('GET', '/billing/portal', undefined, withKey(apiKey));
      assert.equal(portal.status, 200, portal.text);
      assert.match(portal.body.url, /^http:\/\/127\.0\.0\.1:\d+\/portal\/bps_/);

      const subscriptionId = standin.sessions.get(session.id)!.subscription;
      const upgraded = await standin.deliver(
        standin.event(
          'customer.subscription.updated',
          standin.changeSubscription(subscriptionId, { lookupKey: 'fetchdown_pro' }),
        ),
      );
      assert.equal(upgraded.body.outcome, 'applied');
      assert.equal((await accountState(api, email)).plan, 'pro');

      const deleted = await standin.deliver(
        standin.event(
          'customer.subscription.deleted',
          standin.changeSubscription(subscriptionId, { status: 'canceled' }),
        ),
      );
      assert.equal(deleted.body.outcome, 'applied');
      const state = await accountState(api, email);
      assert.equal(state.plan, 'free');
      assert.deepEqual(plansOf(state), ['starter', 'pro', 'free']);
      assert.ok(state.billingRows.every((row) => row.operation === 'plan_change' && row.credits_millis === 0));

      const again = await api.request(
        'POST',
        '/billing/checkout',
        { mode: 'subscription', item_key: 'scale' },
        withKey(apiKey),
      );
      assert.equal(again.status, 200, 'after the deletion a new plan can be bought');
    });

    test('out of order: the upgrade arrives before the checkout that created the subscription → pro', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await subscribe(api, apiKey, 'starter');
      const [created, completed] = standin.complete(session.id);
      const subscriptionId = standin.sessions.get(session.id)!.subscription;
      const later = created!.created + 5;
      const updated = standin.event(
        'customer.subscription.updated',
        standin.changeSubscription(subscriptionId, { lookupKey: 'fetchdown_pro' }),
        later,
      );
      for (const event of [updated, completed!, created!]) assert.equal((await standin.deliver(event)).status, 200);
      const state = await accountState(api, email);
      assert.equal(state.plan, 'pro');
      assert.deepEqual(plansOf(state), ['pro']);
      const portal = await api.request('GET', '/billing/portal', undefined, withKey(apiKey));
      assert.equal(portal.status, 200, 'the late checkout still records the payment');
    });

    test('out of order: a deletion before an older update stays free; lapsed plans end', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await subscribe(api, apiKey, 'pro');
      const [created, completed] = standin.complete(session.id);
      const subscriptionId = standin.sessions.get(session.id)!.subscription;
      const t0 = created!.created;
      const scale = standin.event(
        'customer.subscription.updated',
        standin.changeSubscription(subscriptionId, { lookupKey: 'fetchdown_scale' }),
        t0 + 10,
      );
      const deleted = standin.event(
        'customer.subscription.deleted',
        standin.changeSubscription(subscriptionId, { status: 'canceled' }),
        t0 + 20,
      );
      for (const event of [completed!, deleted, scale, created!])
        assert.equal((await standin.deliver(event)).status, 200);
      let state = await accountState(api, email);
      assert.equal(state.plan, 'free');
      assert.deepEqual(plansOf(state), ['pro', 'free']);

      // Stripe stamps events in the order things happened: later subscriptions' events come after this deletion.
      let clock = t0 + 100;
      for (const status of ['unpaid', 'incomplete_expired']) {
        const other = await subscribe(api, apiKey, 'starter');
        const [otherCreated, otherCompleted] = standin.complete(other.id);
        for (const event of [otherCreated!, otherCompleted!])
          await standin.deliver({ ...event, created: (clock += 10) });
        assert.equal((await accountState(api, email)).plan, 'starter');
        const id = standin.sessions.get(other.id)!.subscription;
        const lapsed = standin.event(
          'customer.subscription.updated',
          standin.changeSubscription(id, { status }),
          (clock += 10),
        );
        assert.equal((await standin.deliver(lapsed)).body.outcome, 'applied');
        state = await accountState(api, email);
        assert.equal(state.plan, 'free', `a subscription that is ${status} leaves the paid plan`);
        if (status === 'unpaid') {
          // An unpaid subscription has not ended: it still blocks a second one until it is canceled.
          const blocked = await api.request(
            'POST',
            '/billing/checkout',
            { mode: 'subscription', item_key: 'pro' },
            withKey(apiKey),
          );
          assert.equal(blocked.status, 409);
          await standin.deliver(
            standin.event(
              'customer.subscription.deleted',
              standin.changeSubscription(id, { status: 'canceled' }),
              (clock += 10),
            ),
          );
        }
      }
    });
  });
}
