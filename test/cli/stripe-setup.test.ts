// `fetchdown stripe-setup` spawned as a self-hoster runs it, against the Stripe stand-in: it creates the plans'
// products and monthly prices with their lookup keys, changes nothing when run again, and replaces a stale price.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { PLANS } from '../../src/pricing.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';

const standin = await startStripeStandin();
after(() => standin.close());

async function setup(env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/fetchdown.mjs', 'stripe-setup'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, 'exit');
  return {
    code: code as number | null,
    stdout,
    stderr,
    actions: stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')),
  };
}

const env = { STRIPE_SECRET_KEY: standin.secretKey, STRIPE_API_BASE: standin.apiBase };
const priceOf = (lookupKey: string) => [...standin.prices.values()].find((p) => p.lookup_key === lookupKey);

test('creates the three plans once; a second run changes nothing', async () => {
  const first = await setup(env);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(
    first.actions.map(([plan, key, , action]) => [plan, key, action]),
    [
      ['starter', 'fetchdown_starter', 'created'],
      ['pro', 'fetchdown_pro', 'created'],
      ['scale', 'fetchdown_scale', 'created'],
    ],
  );
  for (const plan of PLANS.filter((p) => p.key !== 'free')) {
    const price = priceOf(`fetchdown_${plan.key}`)!;
    assert.equal(price.unit_amount, plan.priceCentsPerMonth);
    assert.equal(price.currency, 'usd');
    assert.deepEqual(price.recurring, { interval: 'month', interval_count: 1 });
    assert.equal(price.product, `fetchdown_${plan.key}`);
  }
  const created = standin.requests.filter((r) => r.method === 'POST').length;
  const second = await setup(env);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(
    second.actions.map(([, , , action]) => action),
    ['exists', 'exists', 'exists'],
  );
  assert.equal(standin.requests.filter((r) => r.method === 'POST').length, created, 'nothing created the second time');
  assert.equal(standin.prices.size, 3);
  assert.equal(standin.products.size, 3);

  // A price at another amount (the list price changed) is replaced; the new one takes over the lookup key.
  const old = priceOf('fetchdown_pro')!;
  old.unit_amount = 4900;
  const third = await setup(env);
  assert.equal(third.code, 0, third.stderr);
  assert.deepEqual(
    third.actions.map(([, , , action]) => action),
    ['exists', 'replaced', 'exists'],
  );
  assert.equal(priceOf('fetchdown_pro')!.unit_amount, 9900);
  assert.equal(old.lookup_key, null);
  assert.equal(standin.products.size, 3, 'the product is reused');
});

test('without STRIPE_SECRET_KEY it exits 3 and says what to set', async () => {
  const r = await setup({ STRIPE_API_BASE: standin.apiBase });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /STRIPE_SECRET_KEY/);
});
