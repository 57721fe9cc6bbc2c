// Failed credentials, throttled: unknown or revoked API keys, sign-in links that do not work and wrong admin or
// metrics tokens are counted per client IP and per target (the key or link presented, the token configured) in the
// shared rate limiter.
// Past RATE_LIMIT_AUTH_FAILURES a minute the answer is 429 instead of 401/400. Successes are never counted.
import { hashSecret } from '../accounts/secrets.js';
import { AppError } from '../errors.js';
import type { RateLimitDecision } from '../ratelimit/types.js';
import type { AppDeps } from './app-deps.js';

export type CredentialKind = 'api_key' | 'sign_in_link' | 'admin_token' | 'metrics_token';

const WINDOW_SECONDS = 60;

const NAMES: Record<CredentialKind, string> = {
  api_key: 'API keys',
  sign_in_link: 'sign-in links',
  admin_token: 'admin tokens',
  metrics_token: 'metrics tokens',
};

/**
 * The counters of one attempt: its client IP and its target, what it was aimed at (the key or link presented, the
 * admin token configured), named by a prefix of its hash, never in the clear.
 */
function counters(kind: CredentialKind, ip: string, target: string): { key: string; who: string }[] {
  return [
    { key: `fail:${kind}:ip:${ip}`, who: 'from this address' },
    { key: `fail:${kind}:target:${hashSecret(target).slice(0, 32)}`, who: 'against this target' },
  ];
}

function throttled(kind: CredentialKind, limit: number, who: string, decision: RateLimitDecision): AppError {
  const seconds = decision.resetSeconds;
  return new AppError(
    'rate_limited',
    `too many failed ${NAMES[kind]} ${who}: ${limit} failures per ${WINDOW_SECONDS} s; retry in ${seconds} s`,
    {
      retryHint: `retry after ${seconds} s with a valid credential`,
      headers: { 'Retry-After': String(seconds) },
      extra: { limit, window_seconds: WINDOW_SECONDS, retry_after_seconds: seconds },
    },
  );
}

/**
 * Counts one failed attempt against its IP and its target and returns the error to answer: `failure` itself (the 401
 * or 400) while both counts are within the limit, a 429 rate_limited with Retry-After past it.
 */
export async function failedCredential(
  deps: AppDeps,
  kind: CredentialKind,
  ip: string,
  target: string,
  failure: AppError,
): Promise<AppError> {
  const limit = deps.config.RATE_LIMIT_AUTH_FAILURES;
  if (limit === 0) return failure;
  const decisions = await Promise.all(
    counters(kind, ip, target).map(async ({ key, who }) => ({
      who,
      decision: await deps.rateLimiter.hit(key, limit, WINDOW_SECONDS),
    })),
  );
  const over = decisions.find(({ decision }) => !decision.allowed);
  return over ? throttled(kind, limit, over.who, over.decision) : failure;
}

/**
 * Throws 429 before a credential is even compared when its IP or target has used up its failures: for secrets an
 * operator chooses (the admin token), so a client past the limit cannot learn whether a guess was right.
 */
export async function refuseWhileThrottled(
  deps: AppDeps,
  kind: CredentialKind,
  ip: string,
  target: string,
): Promise<void> {
  const limit = deps.config.RATE_LIMIT_AUTH_FAILURES;
  if (limit === 0) return;
  for (const { key, who } of counters(kind, ip, target)) {
    const decision = await deps.rateLimiter.peek(key, limit, WINDOW_SECONDS);
    if (!decision.allowed) throw throttled(kind, limit, who, decision);
  }
}
