// Credit packs over HTTP on every database: checkout, payment on the stand-in, the signed webhook, the balance; and
// every way a delivery can repeat (replay, concurrent duplicates, another server process) credits once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { accountState, billingApp, checkout, stripeEnv } from '../helpers/billing.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';
import { startServerProcess } from '../helpers/server-process.js';
import { buildTestApp } from '../helpers/test-app.js';

const standin = await startStripeStandin();
after(() => standin.close());

for (const backend of DATABASES) {
  describe(`credit packs on ${backend.name}`, () => {
    test('a paid 10k pack credits 10 000 once, with one ledger row; a replay changes nothing', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await checkout(api, withKey(apiKey), 'pack', '10k');
      const [completed] = await standin.pay(session.id);
      assert.equal(completed!.status, 200, JSON.stringify(completed!.body));
      assert.equal(completed!.body.outcome, 'applied');
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(me.body.balance_credits, 10_000);
      const replay = await standin.deliver(completed!.event);
      assert.equal(replay.status, 200);
      assert.equal(replay.body.outcome, 'duplicate');
      const state = await accountState(api, email);
      assert.equal(state.balanceMillis, 10_000_000);
      assert.deepEqual(state.billingRows, [
        { operation: 'credit_pack', item_key: '10k', credited_millis: 10_000_000, credits_millis: 0 },
      ]);
    });

    test('20 concurrent deliveries of one event credit once', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await checkout(api, withKey(apiKey), 'pack', '100k');
      const event = standin.paidEvent(session.id);
      const results = await Promise.all(Array.from({ length: 20 }, () => standin.deliver(event)));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(20).fill(200),
      );
      assert.equal(results.filter((r) => r.body.outcome === 'applied').length, 1);
      const state = await accountState(api, email);
      assert.equal(state.balanceMillis, 100_000_000);
      assert.equal(state.billingRows.length, 1);
    });

    test('two server processes sharing the database credit a doubly delivered event once', async (t) => {
      const dbEnv = await databaseEnv(t, backend);
      if (!dbEnv) return;
      const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-billing-'));
      t.after(() => rmSync(dataDir, { recursive: true, force: true }));
      const env = { ...dbEnv, ...stripeEnv(standin), DATA_DIR: dataDir };
      const here = await buildTestApp(t, env);
      const other = await startServerProcess(t, env);
      const { email, apiKey } = await signUp(here);
      const session = await checkout(here, withKey(apiKey), 'pack', '1m');
      const event = standin.paidEvent(session.id);
      const urls = [here.base, other.base].map((base) => `${base}/billing/webhook`);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => standin.deliver(event, { url: urls[i % 2] })),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array(10).fill(200),
      );
      assert.equal(results.filter((r) => r.body.outcome === 'applied').length, 1);
      assert.equal(new Set(results.map((r) => r.body.event_id)).size, 1);
      const state = await accountState(here, email);
      assert.equal(state.balanceMillis, 1_000_000_000);
      assert.equal(state.billingRows.length, 1);
    });

    test('a bank transfer credits when it clears (async_payment_succeeded), once', async (t) => {
      const api = await billingApp(t, backend, standin);
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const session = await checkout(api, withKey(apiKey), 'pack', '10k');
      const [completed] = await standin.pay(session.id, 'bank_transfer');
      assert.equal(completed!.status, 200);
      assert.equal(completed!.body.outcome, 'ignored', 'an unpaid session credits nothing yet');
      assert.equal((await accountState(api, email)).balanceMillis, 0);
      const cleared = await standin.settleAsync(session.id);
      assert.equal(cleared.body.outcome, 'applied');
      assert.equal((await standin.deliver(cleared.event)).body.outcome, 'duplicate');
      // The same session completed again (a fresh event id) cannot credit it twice.
      const again = await standin.deliver(standin.event('checkout.session.completed', cleared.event.data.object));
      assert.equal(again.body.outcome, 'ignored');
      const state = await accountState(api, email);
      assert.equal(state.balanceMillis, 10_000_000);
      assert.equal(state.billingRows.length, 1);
    });
  });
}
