// Account helpers for HTTP tests: sign up for a key, sign in through the e-mailed link for a session cookie, put an
// account on a plan.
import assert from 'node:assert/strict';
import type { PlanKey } from '../../src/store/types.js';
import type { SmtpSink } from './smtp.js';
import { signInLink } from './smtp.js';
import type { TestApp } from './test-app.js';

let counter = 0;

/** A fresh address for this process. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${process.pid}-${Date.now()}-${counter++}@example.com`;
}

export async function signUp(
  api: TestApp,
  email = uniqueEmail(),
): Promise<{ email: string; apiKey: string; keyId: number }> {
  const res = await api.post('/account/signup', { email });
  assert.equal(res.status, 200, res.text);
  assert.match(res.body.api_key, /^fd_live_/);
  return { email, apiKey: res.body.api_key, keyId: res.body.key_id };
}

export const withKey = (apiKey: string) => ({ 'x-service-key': apiKey });

/** Moves the account of `apiKey` to `plan` as a paid subscription would, for tests that need a plan's allowance. */
export async function setPlan(api: TestApp, apiKey: string, plan: PlanKey): Promise<void> {
  const me = await api.request('GET', '/account/me', undefined, withKey(apiKey));
  assert.equal(me.status, 200, me.text);
  await api.services.accounts.changePlan(me.body.id, plan);
}

/** Requests a sign-in link, reads it from the SMTP sink, and exchanges it (as a JSON client) for the session cookie. */
export async function signIn(
  api: TestApp,
  smtp: SmtpSink,
  email: string,
): Promise<{ cookie: string; setCookie: string }> {
  const seen = new Set(smtp.messages);
  const login = await api.post('/auth/login', { email });
  assert.equal(login.status, 202);
  const mail = await smtp.waitFor(email, (m) => !seen.has(m) && m.subject === 'Sign in to Fetchdown');
  const { token } = signInLink(mail);
  const verified = await api.request('GET', `/auth/verify?token=${token}`, undefined, { accept: 'application/json' });
  assert.equal(verified.status, 200, verified.text);
  const setCookie = verified.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  assert.match(cookie, /^service_session=[A-Za-z0-9_-]{43}$/);
  return { cookie, setCookie };
}
