// Magic-link sign-in and sessions over HTTP on every database: the link by e-mail, the confirmation page that
// scanners cannot spend, the cookie, single use and expiry, session routes, logout and cross-site refusal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signIn, signUp, uniqueEmail, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { signInLink, startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { appOnDatabase, buildTestApp, type TestApp } from '../helpers/test-app.js';

let smtp: SmtpSink;
before(async () => {
  smtp = await startSmtpServer();
});
after(() => smtp.close());

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function requestLink(api: TestApp, email: string): Promise<string> {
  const seen = new Set(smtp.messages);
  const res = await api.post('/auth/login', { email });
  assert.equal(res.status, 202);
  return signInLink(await smtp.waitFor(email, (m) => !seen.has(m) && m.subject === 'Sign in to Fetchdown')).token;
}

for (const backend of DATABASES) {
  describe(`sign-in on ${backend.name}`, () => {
    async function app(
      t: Parameters<typeof backend.env>[0] & { skip(m?: string): void },
      env: Record<string, string> = {},
      clock?: { now(): number },
    ) {
      return appOnDatabase(
        t,
        backend,
        { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://localhost:8080', ...env },
        { clock },
      );
    }

    test('login is always 202 and mails a one-time link only to registered addresses', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email } = await signUp(api);
      const stranger = uniqueEmail('stranger');
      const known = await api.post('/auth/login', { email });
      const unknown = await api.post('/auth/login', { email: stranger });
      assert.equal(known.status, 202);
      assert.equal(unknown.status, 202);
      assert.deepEqual(known.body, unknown.body);
      const mail = await smtp.waitFor(email, (m) => m.subject === 'Sign in to Fetchdown');
      assert.match(signInLink(mail).url, /^http:\/\/localhost:8080\/auth\/verify\?token=[A-Za-z0-9_-]{43}$/);
      await api.services.accounts.flushMail();
      assert.ok(
        !smtp.messages.some((m) => m.to && JSON.stringify(m.to).includes(stranger)),
        'no mail to an unknown address',
      );
      const links = await api.services.store.db.selectFrom('magic_links').selectAll().execute();
      assert.ok(
        links.every((l) => !JSON.stringify(l).includes(signInLink(mail).token)),
        'tokens are stored hashed',
      );
      assert.equal((await api.post('/auth/login', { email: 'nope' })).status, 422);
    });

    test('at most 5 sign-in links per address per 15 minutes, however they are asked for', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email } = await signUp(api);
      for (let i = 0; i < 4; i++) assert.equal((await api.post('/auth/login', { email })).status, 202);
      for (let i = 0; i < 3; i++) assert.equal((await api.post('/account/signup', { email })).status, 200);
      await api.services.accounts.flushMail();
      const links = smtp.messages.filter(
        (m) => m.subject === 'Sign in to Fetchdown' && JSON.stringify(m.to).includes(email),
      );
      assert.equal(links.length, 5);
    });

    test('JSON clients exchange the token for the session cookie; the token works once', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email } = await signUp(api);
      const token = await requestLink(api, email);
      const res = await api.request('GET', `/auth/verify?token=${token}`, undefined, { accept: 'application/json' });
      assert.equal(res.status, 200);
      assert.equal(res.body.account.email, email);
      const setCookie = res.headers.get('set-cookie') ?? '';
      assert.match(setCookie, /^service_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/; Max-Age=2592000$/);
      const cookie = setCookie.split(';')[0]!;
      const who = await api.request('GET', '/auth/whoami', undefined, { cookie });
      assert.equal(who.status, 200);
      assert.equal(who.body.account.email, email);

      const reused = await api.request('GET', `/auth/verify?token=${token}`, undefined, { accept: 'application/json' });
      assert.equal(reused.status, 400);
      assert.equal(reused.body.code, 'invalid_token');
      assert.match(reused.body.detail, /already been used/);
      const unknown = await api.request('GET', `/auth/verify?token=${'x'.repeat(43)}`);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'invalid_token');
      assert.equal((await api.request('GET', '/auth/verify?token=short')).body.code, 'invalid_token');
      assert.equal((await api.request('GET', '/auth/verify')).status, 422);
    });

    test('browsers get a confirmation page; opening it (or HEAD) never spends the token, the button does', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email } = await signUp(api);
      const token = await requestLink(api, email);
      for (let i = 0; i < 2; i++) {
        const page = await api.request('GET', `/auth/verify?token=${token}`, undefined, HTML);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(page.headers.get('set-cookie'), null);
        assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
        assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
        assert.match(page.text, /<form method="post" action="\/auth\/verify">/);
        assert.match(page.text, new RegExp(`name="token" value="${token}"`));
      }
      const head = await api.request('HEAD', `/auth/verify?token=${token}`);
      assert.notEqual(head.status, 200);

      const submitted = await fetch(`${api.base}/auth/verify`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: api.base,
          'sec-fetch-site': 'same-origin',
          ...HTML,
        },
        body: new URLSearchParams({ token }).toString(),
      });
      assert.equal(submitted.status, 303);
      assert.equal(submitted.headers.get('location'), '/dashboard');
      const cookie = (submitted.headers.get('set-cookie') ?? '').split(';')[0]!;
      assert.equal((await api.request('GET', '/auth/whoami', undefined, { cookie })).status, 200);

      const spent = await api.request('GET', `/auth/verify?token=${token}`, undefined, HTML);
      assert.equal(spent.status, 400);
      assert.match(spent.text, /already been used/);
      const again = await api.request('POST', '/auth/verify', { token }, { accept: 'application/json' });
      assert.equal(again.status, 400);
      assert.equal(again.body.code, 'invalid_token');
    });

    test('a link expires after 15 minutes', async (t) => {
      const at = { now: Date.now() };
      const api = await app(t, {}, { now: () => at.now });
      if (!api) return;
      const { email } = await signUp(api);
      const token = await requestLink(api, email);
      at.now += 15 * 60_000 + 1;
      const res = await api.request('GET', `/auth/verify?token=${token}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'invalid_token');
      assert.match(res.body.detail, /expired/);
      const fresh = await requestLink(api, email);
      at.now += 14 * 60_000;
      assert.equal((await api.request('GET', `/auth/verify?token=${fresh}`)).status, 200);
    });

    test('session routes: keys, usage, logout; 401 without a valid cookie', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email, apiKey, keyId } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);

      for (const [method, path] of [
        ['GET', '/auth/keys'],
        ['POST', '/auth/keys'],
        ['DELETE', `/auth/keys/${keyId}`],
        ['GET', '/auth/usage'],
      ]) {
        for (const headers of [
          {},
          { cookie: `service_session=${'A'.repeat(43)}` },
          { cookie: 'service_session=garbage' },
          { cookie: 'service_session=%E0%A4%A' },
        ] as Record<string, string>[]) {
          const res = await api.request(method!, path!, undefined, headers);
          assert.equal(res.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
          assert.equal(res.body.code, 'invalid_session');
        }
      }
      // An API key is not a session.
      assert.equal((await api.request('GET', '/auth/keys', undefined, withKey(apiKey))).status, 401);

      const keys = await api.request('GET', '/auth/keys', undefined, { cookie });
      assert.equal(keys.status, 200);
      assert.deepEqual(
        keys.body.map((k: any) => k.id),
        [keyId],
      );
      const created = await api.request('POST', '/auth/keys?label=dashboard', undefined, { cookie });
      assert.equal(created.status, 200);
      assert.match(created.body.api_key, /^fd_live_/);
      assert.equal(created.body.key.label, 'dashboard');
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(created.body.api_key))).status, 200);
      const revoked = await api.request('DELETE', `/auth/keys/${keyId}`, undefined, { cookie });
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.revoked, true);
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(apiKey))).status, 401);
      const other = await signUp(api);
      assert.equal((await api.request('DELETE', `/auth/keys/${other.keyId}`, undefined, { cookie })).status, 404);

      const usage = await api.request('GET', '/auth/usage', undefined, { cookie });
      assert.equal(usage.status, 200);
      assert.equal(usage.body.plan, 'free');

      const out = await api.request('POST', '/auth/logout', undefined, { cookie });
      assert.equal(out.status, 200);
      assert.match(
        out.headers.get('set-cookie') ?? '',
        /^service_session=; HttpOnly; SameSite=Lax; Path=\/; Max-Age=0$/,
      );
      const gone = await api.request('GET', '/auth/whoami', undefined, { cookie });
      assert.equal(gone.status, 200);
      assert.equal(gone.body.account, null, 'the session is deleted, not just the cookie');
    });

    test('whoami and logout without a session: 200 saying nobody is signed in; a stale cookie is cleared', async (t) => {
      const api = await app(t);
      if (!api) return;
      for (const headers of [
        {},
        { cookie: `service_session=${'A'.repeat(43)}` },
        { cookie: 'service_session=garbage' },
      ] as Record<string, string>[]) {
        const who = await api.request('GET', '/auth/whoami', undefined, headers);
        assert.equal(who.status, 200, who.text);
        assert.deepEqual(who.body, { account: null, message: 'nobody is signed in' });
        assert.equal(
          who.headers.get('set-cookie') !== null,
          headers.cookie !== undefined,
          'only a sent cookie is cleared',
        );
        const out = await api.request('POST', '/auth/logout', undefined, headers);
        assert.equal(out.status, 200, out.text);
        assert.equal(out.body.message, 'nobody was signed in');
        assert.match(out.headers.get('set-cookie') ?? '', /^service_session=; .*Max-Age=0$/);
      }
    });

    test('cookie-authenticated POST and DELETE from another site are 403 cross_site_request', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email, keyId } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);
      const crossSite: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'null' },
      ];
      for (const headers of crossSite) {
        for (const [method, path] of [
          ['POST', '/auth/keys'],
          ['DELETE', `/auth/keys/${keyId}`],
          ['POST', '/auth/logout'],
        ]) {
          const res = await api.request(method!, path!, undefined, { cookie, ...headers });
          assert.equal(res.status, 403, `${method} ${path} ${JSON.stringify(headers)}`);
          assert.equal(res.body.code, 'cross_site_request');
        }
      }
      const token = await requestLink(api, email);
      const forged = await api.request('POST', '/auth/verify', { token }, { origin: 'https://evil.example' });
      assert.equal(forged.status, 403, 'no login CSRF either');
      // Reads are allowed cross-site (SameSite=Lax decides what the browser sends); same-origin changes pass.
      assert.equal(
        (await api.request('GET', '/auth/keys', undefined, { cookie, 'sec-fetch-site': 'cross-site' })).status,
        200,
      );
      const sameOrigin = await api.request('POST', '/auth/keys', undefined, {
        cookie,
        origin: api.base,
        'sec-fetch-site': 'same-origin',
      });
      assert.equal(sameOrigin.status, 200);
      // A same-origin page with Referrer-Policy no-referrer sends Origin: null; Sec-Fetch-Site says it is ours.
      const noReferrer = await api.request('POST', '/auth/keys', undefined, {
        cookie,
        origin: 'null',
        'sec-fetch-site': 'same-origin',
      });
      assert.equal(noReferrer.status, 200);
      const publicOrigin = await api.request('POST', '/auth/keys', undefined, {
        cookie,
        origin: 'http://localhost:8080',
      });
      assert.equal(publicOrigin.status, 200);
      const keys = await api.request('GET', '/auth/keys', undefined, { cookie });
      assert.equal(keys.body.find((k: any) => k.id === keyId).revoked, false, 'the forged DELETE did nothing');
    });

    test('the cookie is Secure when PUBLIC_BASE_URL is https', async (t) => {
      const api = await app(t, { PUBLIC_BASE_URL: 'https://fetchdown.example' });
      if (!api) return;
      const { email } = await signUp(api);
      const { setCookie } = await signIn(api, smtp, email);
      assert.match(setCookie, /; HttpOnly; SameSite=Lax; Path=\/; Secure; Max-Age=2592000$/);
    });
  });
}

describe('the sign-in link pages', () => {
  test('carry the header set of every other page, and nothing inline for it to allow', async (t) => {
    const api = await buildTestApp(t, { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://localhost:8080' });
    const { email } = await signUp(api);
    const token = await requestLink(api, email);
    const landing = await api.request('GET', '/', undefined, HTML);
    const dashboard = await api.request('GET', '/dashboard', undefined, HTML);
    const confirm = await api.request('GET', `/auth/verify?token=${token}`, undefined, HTML);
    const failed = await api.request('GET', `/auth/verify?token=${'x'.repeat(43)}`, undefined, HTML);
    assert.equal(landing.status, 200);
    assert.equal(confirm.status, 200);
    assert.equal(failed.status, 400);
    assert.match(landing.headers.get('content-security-policy') ?? '', /style-src 'self'/);
    assert.equal(landing.headers.get('x-content-type-options'), 'nosniff');
    for (const [name, page] of Object.entries({ dashboard, confirm, failed })) {
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/, name);
      for (const header of ['content-security-policy', 'x-content-type-options', 'x-frame-options'])
        assert.equal(page.headers.get(header), landing.headers.get(header), `${name}: ${header}`);
    }
    // Stricter where the URL holds the token: never cached, and no referrer at all.
    for (const page of [confirm, failed]) {
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
      assert.doesNotMatch(page.text, /<style|style=|<script/);
      assert.match(page.text, /<link rel="stylesheet" href="\/static\/site\.css">/);
    }
  });
});
