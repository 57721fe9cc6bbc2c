// Rate limits over HTTP, in memory and in Redis: per IP for anonymous callers, per account by plan (its keys together,
// its session routes apart), for sign-up mail, and for failed keys, sign-in links, admin and metrics tokens; 429
// rate_limited with Retry-After and RateLimit-Policy/RateLimit; Redis counts shared by several processes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { signIn, signUp, uniqueEmail, withKey, setPlan } from '../helpers/accounts.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { signInLink, startSmtpServer } from '../helpers/smtp.js';
import { buildTestApp } from '../helpers/test-app.js';

const site: FixtureSite = await startFixtureSite();
const smtp = await startSmtpServer();
after(() => Promise.all([site.close(), smtp.close()]));

/** Well-formed credentials nobody was given. */
const unknownKey = () => `fd_live_${randomBytes(32).toString('base64url')}`;
const unknownToken = () => randomBytes(32).toString('base64url');

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisProblem(): Promise<string | null> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is required in CI but ${REDIS_URL} is not reachable`);
    return `Redis not reachable at ${REDIS_URL}`;
  } finally {
    client.disconnect();
  }
}

let ipCounter = 1;
/** A client address of its own (X-Forwarded-For from a loopback proxy is trusted), so Redis counts never mix. */
const uniqueIp = () =>
  `2001:db8::${process.pid.toString(16)}:${Date.now().toString(16).slice(-4)}:${(ipCounter++).toString(16)}`;

const backends = [
  { name: 'memory', env: async () => ({ CACHE_URL: 'memory://' }) as Record<string, string> | string },
  { name: 'redis', env: async () => (await redisProblem()) ?? { CACHE_URL: REDIS_URL } },
];

for (const backend of backends) {
  describe(`rate limits in ${backend.name}`, () => {
    test('anonymous callers are limited per IP, with RateLimit headers and a 429 that says when to retry', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_ANONYMOUS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' });
      const ip = uniqueIp();
      // Not /cache: it tells anonymous callers from elsewhere nothing (401).
      const url = `/estimate?url=${encodeURIComponent(site.url('/article'))}`;
      for (let i = 0; i < 3; i++) {
        const res = await api.request('GET', url, undefined, { 'x-forwarded-for': ip });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit-policy'), '"anonymous";q=3;w=60');
        assert.match(res.headers.get('ratelimit') ?? '', new RegExp(`^"anonymous";r=${2 - i};t=\\d+$`));
      }
      const limited = await api.request('GET', url, undefined, { 'x-forwarded-for': ip });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'rate_limited');
      assert.match(limited.body.detail, /3 requests per 60 s/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(limited.headers.get('ratelimit-policy'), '"anonymous";q=3;w=60');
      assert.equal(limited.headers.get('ratelimit'), `"anonymous";r=0;t=${retryAfter}`);
      assert.equal(limited.body.retry_after_seconds, retryAfter);
      // Another address has its own count; an API key is not counted per IP.
      assert.equal((await api.request('GET', url, undefined, { 'x-forwarded-for': uniqueIp() })).status, 200);
      const { apiKey } = await signUp(api);
      assert.equal(
        (await api.request('GET', url, undefined, { 'x-forwarded-for': ip, ...withKey(apiKey) })).status,
        200,
      );
    });

    test('accounts are limited by plan, all their keys together', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_FREE: '2', RATE_LIMIT_PRO: '4' });
      const alice = await signUp(api);
      const bob = await signUp(api);
      const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
      const get = (key: string) => api.request('GET', url, undefined, withKey(key));
      assert.equal((await get(alice.apiKey)).headers.get('ratelimit-policy'), '"free";q=2;w=60');
      assert.equal((await get(alice.apiKey)).status, 200);
      const limited = await get(alice.apiKey);
      assert.equal(limited.status, 429);
      assert.match(limited.body.detail, /per account on the free plan \(all of its API keys together\)/);
      assert.equal((await get(bob.apiKey)).status, 200, 'each account counts alone');
      // The same key on /account counts too.
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(alice.apiKey))).status, 429);

      await setPlan(api, bob.apiKey, 'pro');
      const pro = await get(bob.apiKey);
      assert.equal(pro.status, 200);
      assert.equal(pro.headers.get('ratelimit-policy'), '"pro";q=4;w=60');
      assert.equal((await get(bob.apiKey)).status, 200, 'the fourth request of this window');
      assert.equal((await get(bob.apiKey)).status, 429);
    });

    test('one account with several keys cannot exceed its plan limit in sum', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_FREE: '10', MAX_KEYS_PER_ACCOUNT: '10' });
      const alice = await signUp(api);
      // Key creation is itself counted (it is an /account request of the same account): 4 more keys use 4 of 10.
      const more = [];
      for (let i = 0; i < 4; i++) {
        const created = await api.request('POST', '/account/keys', undefined, withKey(alice.apiKey));
        assert.equal(created.status, 200, created.text);
        more.push(created.body.api_key as string);
      }
      const keys = [alice.apiKey, ...more];
      const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
      // Round robin over the five keys, 20 requests at once (4 a key: each key alone would be far within 10): one
      // window, one count for the account.
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api.request('GET', url, undefined, withKey(keys[i % keys.length]!))),
      ).then((all) => all.map((r) => r.status));
      assert.equal(statuses.filter((s) => s === 200).length, 6, '10 per window, 4 used by the key creations');
      assert.equal(statuses.filter((s) => s === 429).length, 14);
      const bob = await signUp(api);
      assert.equal((await api.request('GET', url, undefined, withKey(bob.apiKey))).status, 200);
    });

    test('the session routes are limited per account, apart from its keys', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, {
        ...env,
        RATE_LIMIT_FREE: '3',
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
      });
      const { email, apiKey } = await signUp(api);
      const { cookie } = await signIn(api, smtp, email);
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await api.request('GET', '/auth/usage', undefined, { cookie })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const limited = await api.request('GET', '/auth/keys', undefined, { cookie });
      assert.equal(limited.status, 429);
      assert.match(limited.body.detail, /per account on the free plan for the session routes/);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      // The account's keys have their own count.
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(apiKey))).status, 200);
    });

    test('failed API keys are throttled per client IP and per key; valid keys never count', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_FREE: '0' });
      const { apiKey } = await signUp(api);
      const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
      const from = (ip: string, key: string) =>
        api.request('GET', url, undefined, { 'x-forwarded-for': ip, ...withKey(key) });

      const ip = uniqueIp();
      // A valid key, many times from one address: never a failure.
      for (let i = 0; i < 6; i++) assert.equal((await from(ip, apiKey)).status, 200);
      const guesses = [];
      for (let i = 0; i < 5; i++) guesses.push(await from(ip, unknownKey()));
      assert.deepEqual(
        guesses.map((r) => r.status),
        [401, 401, 401, 429, 429],
      );
      const throttled = guesses[3]!;
      assert.equal(throttled.body.code, 'rate_limited');
      assert.match(throttled.body.detail, /too many failed API keys from this address: 3 failures per 60 s/);
      const retryAfter = Number(throttled.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(throttled.body.retry_after_seconds, retryAfter);
      assert.equal(typeof throttled.body.request_id, 'string');
      // Successful requests are unaffected, even from that address; another address has its own count.
      assert.equal((await from(ip, apiKey)).status, 200);
      assert.equal((await from(uniqueIp(), unknownKey())).status, 401);

      // One revoked key tried from ever new addresses: counted per target too.
      const extra = await api.request('POST', '/account/keys', undefined, withKey(apiKey));
      await api.request('DELETE', `/account/keys/${extra.body.key_id}`, undefined, withKey(apiKey));
      const revoked = [];
      for (let i = 0; i < 4; i++) revoked.push((await from(uniqueIp(), extra.body.api_key)).status);
      assert.deepEqual(revoked, [401, 401, 401, 429]);
      // Malformed keys never reach the database and are not counted.
      for (let i = 0; i < 5; i++) assert.equal((await from(uniqueIp(), 'not-a-key')).status, 401);
    });

    test('failed sign-in links are throttled per client IP and per token', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, {
        ...env,
        RATE_LIMIT_AUTH_FAILURES: '2',
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: 'http://localhost:8080',
      });
      const ip = uniqueIp();
      const json = { 'x-forwarded-for': ip, accept: 'application/json' };
      const tries = [];
      tries.push(await api.request('GET', `/auth/verify?token=${unknownToken()}`, undefined, json));
      tries.push(await api.request('POST', '/auth/verify', { token: unknownToken() }, json));
      tries.push(await api.request('POST', '/auth/verify', { token: unknownToken() }, json));
      assert.deepEqual(
        tries.map((r) => [r.status, r.body.code]),
        [
          [400, 'invalid_token'],
          [400, 'invalid_token'],
          [429, 'rate_limited'],
        ],
      );
      assert.match(tries[2]!.body.detail, /too many failed sign-in links from this address/);
      assert.ok(Number(tries[2]!.headers.get('retry-after')) >= 1);
      // The browser's confirmation page says so too, with the same status and Retry-After.
      const page = await api.request('GET', `/auth/verify?token=${unknownToken()}`, undefined, {
        'x-forwarded-for': ip,
        accept: 'text/html',
      });
      assert.equal(page.status, 429);
      assert.ok(Number(page.headers.get('retry-after')) >= 1);
      assert.match(page.text, /too many failed sign-in links/);

      // A spent link tried again from new addresses: per token.
      const { email } = await signUp(api);
      assert.equal((await api.post('/auth/login', { email })).status, 202);
      const { token } = signInLink(await smtp.waitFor(email, (m) => m.subject === 'Sign in to Fetchdown'));
      assert.equal((await api.request('POST', '/auth/verify', { token }, { 'x-forwarded-for': ip })).status, 200);
      const again = [];
      for (let i = 0; i < 3; i++) {
        const res = await api.request('POST', '/auth/verify', { token }, { 'x-forwarded-for': uniqueIp() });
        again.push(res.status);
      }
      assert.deepEqual(again, [400, 400, 429]);
      // A working link from the throttled address still signs in (above, after its two failures): successes are
      // never refused or counted.
      assert.match((await signIn(api, smtp, email)).cookie, /^service_session=/);
    });

    // Tokens an operator chooses: counted per client IP and for the token; past it the token is not compared.
    const operatorTokens = [
      {
        name: 'admin',
        setting: 'ADMIN_TOKEN',
        path: '/admin/metrics',
        header: (presented: string) => ({ 'x-admin-token': presented }),
      },
      {
        name: 'metrics',
        setting: 'METRICS_TOKEN',
        path: '/metrics',
        header: (presented: string) => ({ authorization: `Bearer ${presented}` }),
      },
    ];
    for (const { name, setting, path, header } of operatorTokens) {
      test(`wrong ${name} tokens are throttled per client IP and for the token; past it the token is not compared`, async (t) => {
        const env = await backend.env();
        if (typeof env === 'string') return t.skip(env);
        const token = `${name}-${randomBytes(12).toString('hex')}`;
        const api = await buildTestApp(t, { ...env, [setting]: token, RATE_LIMIT_AUTH_FAILURES: '2' });
        const send = (ip: string, presented: string) =>
          api.request('GET', path, undefined, { 'x-forwarded-for': ip, ...header(presented) });
        const ip = uniqueIp();
        assert.equal((await send(ip, token)).status, 200);
        assert.equal((await send(ip, token)).status, 200, 'successes are not counted');
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await send(ip, 'wrong-token-0123456789')).status);
        assert.deepEqual(statuses, [401, 401, 429]);
        const refused = await send(ip, token);
        assert.equal(refused.status, 429, 'the right token from a throttled client is refused unseen');
        assert.equal(refused.body.code, 'rate_limited');
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
        // Guesses from many addresses share the token's count: the second address is refused as well.
        const other = await send(uniqueIp(), token);
        assert.equal(other.status, 429);
        assert.match(other.body.detail, new RegExp(`too many failed ${name} tokens against this target`));
      });
    }

    test('sign-up and login e-mails are limited per IP', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_MAIL_PER_HOUR: '2' });
      const ip = { 'x-forwarded-for': uniqueIp() };
      assert.equal((await api.request('POST', '/account/signup', { email: uniqueEmail() }, ip)).status, 200);
      assert.equal((await api.request('POST', '/auth/login', { email: uniqueEmail() }, ip)).status, 202);
      const limited = await api.request('POST', '/account/signup', { email: uniqueEmail() }, ip);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('ratelimit-policy'), '"signin";q=2;w=3600');
      assert.ok(Number(limited.headers.get('retry-after')) > 60);
    });

    test('OAuth client registrations are limited per IP', async (t) => {
      const env = await backend.env();
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR: '2' });
      const register = (ip: string) =>
        api.request(
          'POST',
          '/oauth/register',
          { client_name: 'Agent', redirect_uris: ['http://127.0.0.1:9/callback'] },
          { 'x-forwarded-for': ip },
        );
      const ip = uniqueIp();
      assert.deepEqual([(await register(ip)).status, (await register(ip)).status], [201, 201]);
      const limited = await register(ip);
      assert.equal(limited.status, 429);
      assert.equal((limited.body as { code: string }).code, 'rate_limited');
      assert.equal(limited.headers.get('ratelimit-policy'), '"oauth_register";q=2;w=3600');
      assert.ok(Number(limited.headers.get('retry-after')) > 60);
      assert.equal((await register(uniqueIp())).status, 201, 'another address has a count of its own');
    });
  });
}

test('Redis counts are shared by every process using it', async (t) => {
  const problem = await redisProblem();
  if (problem) return t.skip(problem);
  const env = { CACHE_URL: REDIS_URL, RATE_LIMIT_ANONYMOUS: '3' };
  const one = await buildTestApp(t, env);
  const two = await buildTestApp(t, env);
  const ip = { 'x-forwarded-for': uniqueIp() };
  const url = `/estimate?url=${encodeURIComponent(site.url('/article'))}`;
  assert.equal((await one.request('GET', url, undefined, ip)).status, 200);
  assert.equal((await two.request('GET', url, undefined, ip)).status, 200);
  assert.equal((await one.request('GET', url, undefined, ip)).status, 200);
  assert.equal((await two.request('GET', url, undefined, ip)).status, 429);
});

test('X-Forwarded-For counts only from trusted proxies', async (t) => {
  const api = await buildTestApp(t, { RATE_LIMIT_ANONYMOUS: '2', TRUST_PROXY: 'false' });
  const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
  assert.equal((await api.request('GET', url, undefined, { 'x-forwarded-for': uniqueIp() })).status, 200);
  assert.equal((await api.request('GET', url, undefined, { 'x-forwarded-for': uniqueIp() })).status, 200);
  const spoofed = await api.request('GET', url, undefined, { 'x-forwarded-for': uniqueIp() });
  assert.equal(spoofed.status, 429, 'a forged header does not buy a fresh count');
});
