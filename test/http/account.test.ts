// /account over HTTP on every database: sign-up, keys (shown once, hashed, revoked at once), 401s, validation,
// and sign-up on a known address (same status and body shape, a sign-in link instead of a key, mail sent after the
// answer either way).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signUp, uniqueEmail, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { appOnDatabase } from '../helpers/test-app.js';
import { signInLink, startSmtpServer, type SmtpSink } from '../helpers/smtp.js';

let smtp: SmtpSink;
before(async () => {
  smtp = await startSmtpServer();
});
after(() => smtp.close());

const KEY_OUT_FIELDS = ['created_at', 'id', 'label', 'last_used_at', 'revoked'];

for (const backend of DATABASES) {
  describe(`/account on ${backend.name}`, () => {
    async function app(t: Parameters<typeof backend.env>[0] & { skip(m?: string): void }, more = {}) {
      return appOnDatabase(t, backend, { SMTP_URL: smtp.url, MAIL_FROM: 'Fetchdown <keys@fetchdown.test>', ...more });
    }

    test('sign-up returns a key once, e-mails it, and stores only its hash', async (t) => {
      const api = await app(t);
      if (!api) return;
      const email = uniqueEmail('Signup');
      const res = await api.post('/account/signup', { email: `  ${email.toUpperCase()} `.trim(), label: 'laptop' });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['api_key', 'key_id', 'message']);
      assert.match(res.body.api_key, /^fd_live_[A-Za-z0-9_-]{43}$/);
      assert.equal(typeof res.body.key_id, 'number');

      const mail = await smtp.waitFor(email);
      assert.equal(mail.subject, 'Your Fetchdown API key');
      assert.match(mail.text ?? '', new RegExp(res.body.api_key));
      assert.equal(mail.from?.value[0]?.address, 'keys@fetchdown.test');

      const rows = await api.services.store.db.selectFrom('api_keys').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.key_hash, createHash('sha256').update(res.body.api_key).digest('hex'));
      assert.ok(!JSON.stringify(rows).includes(res.body.api_key.slice(8)), 'no plaintext in the store');

      const me = await api.request('GET', '/account/me', undefined, withKey(res.body.api_key));
      assert.equal(me.status, 200);
      assert.equal(me.body.email, email.toLowerCase());
      assert.equal(me.body.plan, 'free');
      assert.equal(me.body.monthly_credits, 500);
      assert.equal(me.body.balance_credits, 0);

      const keys = await api.request('GET', '/account/keys', undefined, withKey(res.body.api_key));
      assert.equal(keys.status, 200);
      assert.equal(keys.body.length, 1);
      assert.deepEqual(Object.keys(keys.body[0]).sort(), KEY_OUT_FIELDS);
      assert.equal(keys.body[0].id, res.body.key_id);
      assert.equal(keys.body[0].label, 'laptop');
      assert.equal(keys.body[0].revoked, false);
      assert.ok(!keys.text.includes(res.body.api_key), 'the key is never shown again');
    });

    test('usage of 20,000 requests is read from a few total rows, and the admin metrics from the same totals', async (t) => {
      const api = await app(t, { ADMIN_TOKEN: 'admin-token-for-totals-test' });
      if (!api) return;
      const { apiKey } = await signUp(api);
      const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      const { credits } = api.services.accounts;
      for (let i = 0; i < 20_000; i++)
        void credits.record({
          account_id: me.body.id,
          key_id: null,
          operation: 'fetch',
          fetcher: 'html',
          cache_hit: i % 2,
          tokens: 1,
          status: i % 10 ? 'ok' : 'upstream_timeout',
          url_host: null,
          duration_ms: 1,
        });
      await credits.flush();
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.status, 200, usage.text);
      assert.deepEqual(
        [usage.body.requests, usage.body.fetches, usage.body.failed, usage.body.cache_hits],
        [20_000, 18_000, 2_000, 10_000],
      );
      assert.equal(usage.body.daily.at(-1).requests, 20_000);
      const totals = await api.services.store.db
        .selectFrom('usage_totals')
        .selectAll()
        .where('account_id', '=', me.body.id)
        .execute();
      assert.ok(totals.length <= 8, `${totals.length} total rows`);
      const metrics = await api.request('GET', '/admin/metrics', undefined, {
        'x-admin-token': 'admin-token-for-totals-test',
      });
      assert.equal(metrics.status, 200, metrics.text);
      assert.ok(metrics.body.month.requests >= 20_000);
      assert.ok(metrics.body.month.by_status.upstream_timeout >= 2_000);
    });

    test('a known address gets the same answer, no key, and a sign-in link by e-mail', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { email } = await signUp(api);
      const again = await api.post('/account/signup', { email, label: 'second' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { api_key: null, key_id: null, message: again.body.message });
      const first = await api.post('/account/signup', { email: uniqueEmail() });
      assert.equal(again.body.message, first.body.message, 'one generic message for both cases');
      const mail = await smtp.waitFor(email, (m) => m.subject === 'Sign in to Fetchdown');
      assert.match(signInLink(mail).url, /^http:\/\/localhost:8080\/auth\/verify\?token=/);
      const keys = await api.services.store.db.selectFrom('api_keys').selectAll().execute();
      assert.equal(keys.length, 2, 'one key per account, none added for the known address');
    });

    test('missing, malformed, unknown and revoked keys are 401 with WWW-Authenticate', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { apiKey, keyId } = await signUp(api);
      const cases: [string, Record<string, string>][] = [
        ['missing', {}],
        ['malformed', withKey('not-a-key')],
        ['unknown', withKey(`fd_live_${'A'.repeat(43)}`)],
      ];
      for (const [name, headers] of cases) {
        for (const path of ['/account/me', '/account/keys', '/account/usage']) {
          const res = await api.request('GET', path, undefined, headers);
          assert.equal(res.status, 401, `${name} ${path}`);
          assert.equal(res.body.code, 'invalid_api_key');
          assert.equal(typeof res.body.detail, 'string');
          assert.equal(res.headers.get('www-authenticate'), 'ApiKey header="X-Service-Key"');
        }
      }
      const revoked = await api.request('DELETE', `/account/keys/${keyId}`, undefined, withKey(apiKey));
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.revoked, true);
      const after = await api.request('GET', '/account/me', undefined, withKey(apiKey));
      assert.equal(after.status, 401, 'a revoked key stops at once');
      assert.match(after.body.detail, /revoked/);
    });

    test("keys: create with a label, revoke, and another account's key is 404", async (t) => {
      const api = await app(t);
      if (!api) return;
      const alice = await signUp(api);
      const bob = await signUp(api);
      const created = await api.request('POST', '/account/keys?label=ci', undefined, withKey(alice.apiKey));
      assert.equal(created.status, 200);
      assert.match(created.body.api_key, /^fd_live_/);
      assert.equal(created.body.key.label, 'ci');
      assert.deepEqual(Object.keys(created.body.key).sort(), KEY_OUT_FIELDS);
      const unnamed = await api.request('POST', '/account/keys', undefined, withKey(alice.apiKey));
      assert.equal(unnamed.body.key.label, 'additional');
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(created.body.api_key))).status, 200);

      const foreign = await api.request('DELETE', `/account/keys/${bob.keyId}`, undefined, withKey(alice.apiKey));
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'not_found');
      assert.equal(
        (await api.request('GET', '/account/me', undefined, withKey(bob.apiKey))).status,
        200,
        "bob's key still works",
      );
      assert.equal((await api.request('DELETE', '/account/keys/999999', undefined, withKey(alice.apiKey))).status, 404);
      assert.equal((await api.request('DELETE', '/account/keys/abc', undefined, withKey(alice.apiKey))).status, 422);

      const revoke = await api.request(
        'DELETE',
        `/account/keys/${created.body.key_id}`,
        undefined,
        withKey(alice.apiKey),
      );
      assert.equal(revoke.status, 200);
      assert.deepEqual(Object.keys(revoke.body).sort(), KEY_OUT_FIELDS);
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(created.body.api_key))).status, 401);
      const list = await api.request('GET', '/account/keys', undefined, withKey(alice.apiKey));
      assert.deepEqual(
        list.body.map((k: any) => [k.label, k.revoked]),
        [
          ['default', false],
          ['ci', true],
          ['additional', false],
        ],
      );
      const tooLong = await api.request(
        'POST',
        `/account/keys?label=${'x'.repeat(65)}`,
        undefined,
        withKey(alice.apiKey),
      );
      assert.equal(tooLong.status, 422);
    });

    test('a key id past what the database holds is a 422, and a label with NUL too (Postgres answered 500)', async (t) => {
      const api = await app(t);
      if (!api) return;
      const alice = await signUp(api);
      for (const id of ['2147483648', '9007199254740993', '99999999999999999999999']) {
        const res = await api.request('DELETE', `/account/keys/${id}`, undefined, withKey(alice.apiKey));
        assert.equal(res.status, 422, `${id}: ${res.text}`);
        assert.deepEqual(res.body.detail[0].loc, ['path', 'key_id']);
        assert.equal(res.body.detail[0].type, 'less_than_equal');
      }
      const largest = await api.request('DELETE', '/account/keys/2147483647', undefined, withKey(alice.apiKey));
      assert.equal(largest.status, 404, largest.text);
      const nul = await api.request('POST', '/account/keys?label=a%00b', undefined, withKey(alice.apiKey));
      assert.equal(nul.status, 422, nul.text);
      assert.deepEqual(nul.body.detail[0].loc, ['query', 'label']);
      assert.equal(nul.body.detail[0].type, 'string_pattern_mismatch');
      const signup = await api.post('/account/signup', { email: uniqueEmail(), label: '\u0000' });
      assert.equal(signup.status, 422, signup.text);
      assert.deepEqual(signup.body.detail[0].loc, ['body', 'label']);
      const unicode = await api.request(
        'POST',
        '/account/keys?label=caf%C3%A9%20%F0%9F%98%80',
        undefined,
        withKey(alice.apiKey),
      );
      assert.equal(unicode.status, 200, unicode.text);
      assert.equal(unicode.body.key.label, 'café 😀');
    });

    test('an account holds at most MAX_KEYS_PER_ACCOUNT active keys, even when asked for many at once', async (t) => {
      const api = await app(t, { MAX_KEYS_PER_ACCOUNT: '3' });
      if (!api) return;
      const alice = await signUp(api);
      // Eight requests at once for the two keys left: the account row is locked while one counts and inserts.
      const created = await Promise.all(
        Array.from({ length: 8 }, () => api.request('POST', '/account/keys', undefined, withKey(alice.apiKey))),
      );
      assert.deepEqual(created.map((r) => r.status).sort(), [200, 200, 409, 409, 409, 409, 409, 409]);
      const refused = created.find((r) => r.status === 409)!;
      assert.equal(refused.body.code, 'too_many_keys');
      assert.equal(refused.body.max_keys, 3);
      assert.match(refused.body.detail, /already has 3 active API keys.*revoke one/);
      assert.equal(typeof refused.body.request_id, 'string');
      const list = await api.request('GET', '/account/keys', undefined, withKey(alice.apiKey));
      assert.equal(list.body.length, 3);
      // Revoked keys do not count: revoking one makes room for one.
      const first = created.find((r) => r.status === 200)!;
      await api.request('DELETE', `/account/keys/${first.body.key_id}`, undefined, withKey(alice.apiKey));
      assert.equal((await api.request('POST', '/account/keys', undefined, withKey(alice.apiKey))).status, 200);
      assert.equal((await api.request('POST', '/account/keys', undefined, withKey(alice.apiKey))).status, 409);
      // Another account has its own allowance of keys.
      const bob = await signUp(api);
      assert.equal((await api.request('POST', '/account/keys', undefined, withKey(bob.apiKey))).status, 200);
    });

    test('last_used_at is written on first use and then at most once a minute', async (t) => {
      const api = await app(t);
      if (!api) return;
      const { apiKey } = await signUp(api);
      const before = await api.request('GET', '/account/keys', undefined, withKey(apiKey));
      const firstUse = before.body[0].last_used_at;
      assert.ok(firstUse, 'the listing request itself used the key');
      for (let i = 0; i < 3; i++) await api.request('GET', '/account/me', undefined, withKey(apiKey));
      const later = await api.request('GET', '/account/keys', undefined, withKey(apiKey));
      assert.equal(later.body[0].last_used_at, firstUse, 'no write per request');
    });

    test('sign-up validation: e-mail format, label length, unknown fields', async (t) => {
      const api = await app(t);
      if (!api) return;
      const bad = await api.post('/account/signup', { email: 'not-an-address' });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.detail[0].loc, ['body', 'email']);
      const long = await api.post('/account/signup', { email: uniqueEmail(), label: 'x'.repeat(65) });
      assert.equal(long.status, 422);
      assert.deepEqual(long.body.detail[0].loc, ['body', 'label']);
      assert.equal(long.body.detail[0].type, 'string_too_long');
      const extra = await api.post('/account/signup', { email: uniqueEmail(), plan: 'pro' });
      assert.equal(extra.status, 422);
      assert.equal(extra.body.detail[0].type, 'extra_forbidden');
      const missing = await api.post('/account/signup', {});
      assert.equal(missing.status, 422);
      assert.equal(missing.body.detail[0].type, 'missing');
      const max = await api.post('/account/signup', { email: uniqueEmail(), label: 'x'.repeat(64) });
      assert.equal(max.status, 200);
    });

    test('new and known addresses are answered before their mail is sent', async (t) => {
      // Both branches run the same statements in one transaction (accounts/login.ts); sending mail inline is the
      // one step that would make a known address slower or faster to answer. With the SMTP server holding every
      // message, both answers arrive while no mail has been accepted.
      const api = await app(t);
      if (!api) return;
      const known = await signUp(api);
      await smtp.waitFor(known.email);
      const fresh = uniqueEmail('held');
      const received = smtp.messages.length;
      const release = smtp.hold();
      try {
        const answers = await Promise.all([
          api.post('/account/signup', { email: fresh }),
          api.post('/account/signup', { email: known.email }),
        ]);
        assert.deepEqual(
          answers.map((r) => r.status),
          [200, 200],
        );
        assert.equal(smtp.messages.length, received, 'both answered while their mail was held');
      } finally {
        release();
      }
      assert.equal((await smtp.waitFor(fresh)).subject, 'Your Fetchdown API key');
      await smtp.waitFor(known.email, (m) => m.subject === 'Sign in to Fetchdown');
    });
  });
}
