// Rate limits over HTTP, in memory and in Redis: per IP for anonymous callers, per key by plan, for sign-up mail;
// 429 rate_limited with Retry-After and RateLimit-Policy/RateLimit; Redis counts shared by several processes.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { signUp, uniqueEmail, withKey } from '../helpers/accounts.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp } from '../helpers/test-app.js';

const site: FixtureSite = await startFixtureSite();
after(() => site.close());

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
      const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
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

    test('keys are limited per key by plan', async (t) => {
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
      assert.match(limited.body.detail, /per key on the free plan/);
      assert.equal((await get(bob.apiKey)).status, 200, 'each key counts alone');
      // The same key on /account counts too.
      assert.equal((await api.request('GET', '/account/me', undefined, withKey(alice.apiKey))).status, 429);

      const me = await api.request('GET', '/account/me', undefined, withKey(bob.apiKey));
      await api.services.accounts.changePlan(me.body.id, 'pro');
      const pro = await get(bob.apiKey);
      assert.equal(pro.status, 200);
      assert.equal(pro.headers.get('ratelimit-policy'), '"pro";q=4;w=60');
      assert.equal((await get(bob.apiKey)).status, 200, 'the fourth request of this window');
      assert.equal((await get(bob.apiKey)).status, 429);
    });

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
  });
}

test('Redis counts are shared by every process using it', async (t) => {
  const problem = await redisProblem();
  if (problem) return t.skip(problem);
  const env = { CACHE_URL: REDIS_URL, RATE_LIMIT_ANONYMOUS: '3' };
  const one = await buildTestApp(t, env);
  const two = await buildTestApp(t, env);
  const ip = { 'x-forwarded-for': uniqueIp() };
  const url = `/cache?url=${encodeURIComponent(site.url('/article'))}`;
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
