// Billing test helpers: an app configured against the Stripe stand-in on one of the databases, with webhooks
// forwarded to it, and the account state the tests assert on.
import assert from 'node:assert/strict';
import type { DatabaseBackend, DatabaseTestContext } from './databases.js';
import type { StripeStandin } from './stripe-standin.js';
import { appOnDatabase, type TestApp } from './test-app.js';

export function stripeEnv(standin: StripeStandin): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: standin.secretKey,
    STRIPE_WEBHOOK_SECRET: standin.webhookSecret,
    STRIPE_API_BASE: standin.apiBase,
  };
}

/** The app on this backend wired to the stand-in (null when the backend is unavailable and the test skipped). */
export async function billingApp(
  t: DatabaseTestContext,
  backend: DatabaseBackend,
  standin: StripeStandin,
  env: Record<string, string> = {},
): Promise<TestApp | null> {
  const api = await appOnDatabase(t, backend, { ...stripeEnv(standin), ...env });
  if (!api) return null;
  standin.forwardTo(`${api.base}/billing/webhook`);
  return api;
}

export async function checkout(
  api: TestApp,
  headers: Record<string, string>,
  mode: string,
  itemKey: string,
): Promise<{ id: string; url: string }> {
  const res = await api.request('POST', '/billing/checkout', { mode, item_key: itemKey }, headers);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Plan, balance and the billing rows of the ledger, as the database holds them. */
export async function accountState(api: TestApp, email: string) {
  const db = api.services.store.db;
  const account = await db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('ledger')
    .select(['operation', 'item_key', 'credited_millis', 'credits_millis'])
    .where('account_id', '=', account.id)
    .where('operation', 'in', ['credit_pack', 'plan_change'])
    .orderBy('id')
    .execute();
  return { plan: account.plan, balanceMillis: account.balance_millis, billingRows: rows };
}
