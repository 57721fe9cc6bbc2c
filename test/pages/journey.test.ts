// A person's way through the pages, end to end in Chromium against the real server (SQLite, and Postgres when
// TEST_DATABASE_URL is set): landing page → sign-up → magic link from the SMTP server → dashboard → keys → playground →
// a 10k pack paid on the Stripe stand-in → the portal → sign-out, with every page of ours free of console errors,
// failed requests, foreign hosts and accessibility violations.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { uniqueEmail } from '../helpers/accounts.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { signInLink, startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { stripeEnv } from '../helpers/billing.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin.js';
import { buildTestApp } from '../helpers/test-app.js';
import { browserSkip } from '../fetchers/chromium.js';
import { accessibilityViolations, launchBrowser, watchPage } from './browser.js';

describe('the journey through the pages', { skip: browserSkip() }, () => {
  let browser: Browser;
  let smtp: SmtpSink;
  let site: FixtureSite;
  let stripe: StripeStandin;
  before(async () => {
    [browser, smtp, site, stripe] = await Promise.all([
      launchBrowser(),
      startSmtpServer(),
      startFixtureSite(),
      startStripeStandin(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await smtp?.close();
    await site?.close();
    await stripe?.close();
  });

  /** A free port, so PUBLIC_BASE_URL (sign-in links, Stripe's return URLs) can be the test server itself. */
  async function freePort(): Promise<number> {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  /** The page is an HTML 200 that passes the accessibility check. */
  async function checkPage(page: Page) {
    assert.deepEqual(await accessibilityViolations(page), [], page.url());
  }

  for (const database of DATABASES) {
    test(`on ${database.name}: sign up, sign in by e-mail, keys, playground, usage, buy a pack, portal, sign out`, async (t) => {
      const env = await databaseEnv(t, database);
      if (!env) return;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const api = await buildTestApp(t, {
        ...env,
        ...stripeEnv(stripe),
        SMTP_URL: smtp.url,
        PORT: String(port),
        PUBLIC_BASE_URL: base,
      });
      stripe.forwardTo(`${api.base}/billing/webhook`);
      const context = await browser.newContext();
      t.after(() => context.close());
      const page = await context.newPage();
      const watch = watchPage(page, api.base, [new URL(stripe.apiBase).origin]);
      const email = uniqueEmail('journey');

      // The landing page leads to sign-up.
      await page.goto(api.base + '/');
      await checkPage(page);
      await page.getByRole('link', { name: 'Get a free API key' }).click();
      await page.waitForURL(`${api.base}/dashboard#sign-in`);
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      await checkPage(page);

      // The link from the e-mail, opened as it is, then confirmed.
      const mail = await smtp.waitFor(email, (m) => m.subject === 'Sign in to Fetchdown');
      assert.ok(signInLink(mail).url.startsWith(`${api.base}/auth/verify?token=`));
      await page.goto(signInLink(mail).url);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${api.base}/dashboard`);
      assert.match(
        await page.locator('.dash-head').innerText(),
        new RegExp(`Signed in as ${email.replace(/[.+]/g, '\\$&')}`),
      );
      assert.equal(await page.locator('#plan').innerText(), 'free');
      await checkPage(page);

      // Create a key: shown once, with a copy button.
      await page.getByLabel('Label').fill('laptop');
      await page.getByRole('button', { name: 'Create a key' }).click();
      const shown = await page.locator('.new-key code').innerText();
      assert.match(shown, /^fd_live_[A-Za-z0-9_-]+$/);
      assert.ok(await page.locator('.new-key button[data-copy]').isVisible());
      await checkPage(page);

      // The playground, with the new key already filled in, fetches a page of the fixture site.
      assert.equal(await page.getByLabel('API key', { exact: true }).inputValue(), shown);
      await page.getByLabel('URL', { exact: true }).fill(site.url('/article'));
      await page.getByRole('button', { name: 'Fetch', exact: true }).click();
      await page.locator('#pg-fetcher').waitFor();
      assert.equal(await page.locator('#pg-fetcher').innerText(), 'html');
      assert.equal(await page.locator('#pg-credits').innerText(), '1');
      assert.ok(Number(await page.locator('#pg-tokens').innerText()) > 50);
      assert.match(await page.locator('#playground pre').innerText(), /^# Growing Tomatoes on a Balcony/);
      await checkPage(page);

      // A fresh load: the plaintext is gone, the usage shows the fetch (chart bar and tables).
      await page.goto(api.base + '/dashboard');
      assert.equal(await page.locator('.new-key').count(), 0, 'the key is shown once');
      assert.ok(!(await page.content()).includes(shown));
      const bars = await page
        .locator('svg.chart rect.bar')
        .evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
      assert.ok(
        bars.some((h) => h > 0),
        'a bar for today',
      );
      assert.match(await page.locator('table', { hasText: 'By operation' }).innerText(), /fetch\s+1\s+1/);
      assert.match(await page.locator('table', { hasText: 'By fetcher' }).innerText(), /html\s+1\s+1/);

      // Revoke the first key (from sign-up), after confirming.
      const firstRow = page.locator('table.keys tbody tr', { hasText: 'default' });
      await firstRow.getByText('Revoke', { exact: true }).click();
      await firstRow.getByRole('button', { name: 'Yes, revoke this key' }).click();
      await page.waitForURL(`${api.base}/dashboard?notice=revoked`);
      assert.match(await page.locator('table.keys tbody tr', { hasText: 'default' }).innerText(), /revoked/);
      assert.match(await page.locator('table.keys tbody tr', { hasText: 'laptop' }).innerText(), /active/);
      await checkPage(page);

      // Buy a 10k pack: Stripe's checkout (the stand-in) is paid, its webhook credits the balance once.
      assert.equal(await page.locator('#balance').innerText(), '0 credits');
      await page.getByRole('button', { name: /^10,000 credits for \$10/ }).click();
      await page.waitForURL(`${stripe.apiBase}/pay/**`);
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(`${api.base}/dashboard?checkout=success**`);
      assert.match(await page.locator('.notice').innerText(), /the payment went through/);
      await checkPage(page);
      // The webhook may land just after the redirect: the balance is read again until it shows (at most a few loads).
      for (let i = 0; i < 20 && (await page.locator('#balance').innerText()) !== '10,000 credits'; i++)
        await page.reload();
      assert.equal(await page.locator('#balance').innerText(), '10,000 credits');

      // Manage billing: the portal of the stand-in, and back.
      await page.getByRole('button', { name: 'Manage billing and invoices' }).click();
      await page.waitForURL(`${stripe.apiBase}/portal/**`);
      assert.equal(await page.locator('h1').innerText(), 'Billing portal');
      await page.goto(api.base + '/dashboard');

      // Sign out, and the dashboard is the sign-in form again; the old cookie no longer works.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${api.base}/dashboard?notice=signed-out`);
      assert.ok(await page.getByLabel('E-mail address').isVisible());
      await page.goto(api.base + '/dashboard');
      assert.equal(await page.locator('.dash-head').count(), 0, 'no account shown');
      assert.equal((await page.request.get(`${api.base}/auth/keys`)).status(), 401);
      await checkPage(page);

      assert.deepEqual(watch.problems, []);
    });
  }
});
