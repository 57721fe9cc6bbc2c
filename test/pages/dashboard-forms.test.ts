// The dashboard's forms over plain HTTP, as a browser without JavaScript posts them: the cross-site check, what a
// signed-out visitor gets, mistakes shown as messages on the page, and no text from the request echoed as a notice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signIn, signUp } from '../helpers/accounts.js';
import { startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('dashboard forms', () => {
  let api: TestApp;
  let smtp: SmtpSink;
  let cookie: string;
  before(async () => {
    smtp = await startSmtpServer();
    api = await buildTestApp({ after }, { SMTP_URL: smtp.url });
    const { email } = await signUp(api);
    ({ cookie } = await signIn(api, smtp, email));
  });
  after(() => smtp?.close());

  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    api.request('POST', path, new URLSearchParams(form).toString(), { ...FORM, ...headers });

  test('every form refuses a post from another site (403 cross_site_request) and changes nothing', async () => {
    for (const path of [
      '/dashboard/sign-in',
      '/dashboard/sign-out',
      '/dashboard/keys',
      '/dashboard/keys/1/revoke',
      '/dashboard/apps/1/disconnect',
      '/dashboard/checkout',
      '/dashboard/portal',
      '/dashboard/playground',
    ]) {
      for (const crossSite of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
        string,
        string
      >[]) {
        const res = await post(path, { email: 'x@example.com', label: 'evil' }, { cookie, ...crossSite });
        assert.equal(res.status, 403, `${path} ${JSON.stringify(crossSite)}`);
        assert.equal(res.body.code, 'cross_site_request');
      }
    }
    const keys = await api.request('GET', '/auth/keys', undefined, { cookie });
    assert.equal(keys.body.length, 1, 'no key was created');
  });

  test('signed out, each form leads back to the sign-in form', async () => {
    for (const path of [
      '/dashboard/keys',
      '/dashboard/apps/1/disconnect',
      '/dashboard/checkout',
      '/dashboard/portal',
      '/dashboard/playground',
    ]) {
      const res = await post(path, { url: 'https://example.com/', api_key: 'fd_live_x' });
      assert.equal(res.status, 200, path);
      assert.match(res.text, /E-mail me a sign-in link/, path);
    }
  });

  test('a malformed address is explained on the sign-in page (422), not as JSON', async () => {
    const res = await post('/dashboard/sign-in', { email: 'not-an-address' });
    assert.equal(res.status, 422);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.text, /class="notice"[^>]*>email: /);
  });

  test('billing without Stripe is a friendly message; a bad playground key is an error on the page', async () => {
    const checkout = await post('/dashboard/checkout', { mode: 'pack', item_key: '10k' }, { cookie });
    assert.equal(checkout.status, 200);
    assert.match(checkout.text, /Billing is not configured on this server/);
    const portal = await post('/dashboard/portal', {}, { cookie });
    assert.match(portal.text, /Billing is not configured on this server/);
    // The page offers nothing for sale that can only fail: it says that billing is off.
    const page = await api.request('GET', '/dashboard', undefined, { cookie });
    assert.match(page.text, /Billing is off on this server/);
    assert.ok(!page.text.includes('action="/dashboard/checkout"'), 'no buy buttons');
    assert.ok(!page.text.includes('action="/dashboard/portal"'));
    const playground = await post(
      '/dashboard/playground',
      { url: 'https://example.com/', api_key: 'fd_live_wrong' },
      { cookie },
    );
    assert.equal(playground.status, 200);
    assert.match(playground.text, /role="alert">HTTP 401: /);
  });

  test('only known notices are shown; text in the query is never echoed', async () => {
    const res = await api.request('GET', '/dashboard?notice=%3Cscript%3Ealert(1)%3C/script%3E', undefined, { cookie });
    assert.equal(res.status, 200);
    assert.ok(!res.text.includes('alert(1)'));
    assert.equal(res.headers.get('cache-control'), 'no-store');
    for (const name of ['__proto__', 'constructor']) {
      const odd = await api.request('GET', `/dashboard?notice=${name}`, undefined, { cookie });
      assert.ok(!odd.text.includes('class="notice'), name);
    }
    const revoked = await api.request('GET', '/dashboard?notice=revoked', undefined, { cookie });
    assert.match(revoked.text, /The key is revoked/);
  });
});
