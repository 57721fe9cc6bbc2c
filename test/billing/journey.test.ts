// The new user's journey, on every database: sign up, sign in by magic link, buy a 10k pack with the session cookie,
// pay on the stand-in's checkout page (its form, as a browser submits it), and see the balance grow by 10 000 in
// /account/me and /auth/usage once the webhook arrives; the same webhook again changes nothing.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signIn, signUp, withKey } from '../helpers/accounts.js';
import { billingApp, checkout } from '../helpers/billing.js';
import { DATABASES } from '../helpers/databases.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { startStripeStandin } from '../helpers/stripe-standin.js';

const standin = await startStripeStandin();
const smtp = await startSmtpServer();
after(() => Promise.all([standin.close(), smtp.close()]));

for (const backend of DATABASES) {
  describe(`a new user buys credits on ${backend.name}`, () => {
    test('sign up, magic link, checkout a 10k pack, pay, webhook: +10 000 credits once', async (t) => {
      const api = await billingApp(t, backend, standin, {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://fetchdown.test',
      });
      if (!api) return;
      const { email, apiKey } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);
      const balance = async () => {
        const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
        const usage = await api.request('GET', '/auth/usage', undefined, { cookie });
        assert.equal(me.status, 200);
        assert.equal(usage.status, 200, usage.text);
        assert.equal(me.body.balance_credits, usage.body.balance_credits);
        return { credits: me.body.balance_credits as number, usage: usage.body };
      };
      assert.equal((await balance()).credits, 0);

      const session = await checkout(
        api,
        { cookie, origin: 'http://fetchdown.test', 'sec-fetch-site': 'same-origin' },
        'pack',
        '10k',
      );
      const page = await fetch(session.url);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /Pay \$10\.00/);
      const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
      const paid = await fetch(new URL(action, session.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'method=card',
        redirect: 'manual',
      });
      assert.equal(paid.status, 303);
      assert.equal(
        paid.headers.get('location'),
        `http://fetchdown.test/dashboard?checkout=success&session_id=${session.id}`,
      );
      const delivery = standin.deliveries.find((d) => d.event.data.object.id === session.id)!;
      assert.equal(delivery.status, 200);
      assert.equal(delivery.body.outcome, 'applied');

      const bought = await balance();
      assert.equal(bought.credits, 10_000);
      assert.deepEqual(
        bought.usage.purchases.map((p: { operation: string; item_key: string; credits_added: number }) => [
          p.operation,
          p.item_key,
          p.credits_added,
        ]),
        [['credit_pack', '10k', 10_000]],
      );
      assert.equal(bought.usage.requests, 0, 'a purchase is not a metered request');

      const replay = await standin.deliver(delivery.event);
      assert.equal(replay.status, 200);
      assert.equal(replay.body.outcome, 'duplicate');
      assert.equal((await balance()).credits, 10_000);

      const portal = await api.request('GET', '/billing/portal', undefined, { cookie });
      assert.equal(portal.status, 200);
      assert.equal(
        standin.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!.params.return_url,
        'http://fetchdown.test/dashboard',
      );
    });
  });
}
