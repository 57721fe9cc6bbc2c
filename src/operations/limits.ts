// How often a caller may ask, counted in the shared rate limiter: requests per account by its plan (all its keys
// together; its session routes apart), per client address without a key, sign-up and sign-in mail per address; and
// failed credentials (unknown or revoked API keys, sign-in links that do not work, wrong admin or metrics tokens),
// counted per client address and per target. Past RATE_LIMIT_AUTH_FAILURES a minute the answer is 429 instead of
// 401/400; successes are never counted. The HTTP surface turns a decision into RateLimit headers and its 429.
import { equalSecrets, hashSecret } from '../accounts/secrets.js';
import type { PlanTable } from '../accounts/plans.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { RateLimitDecision, RateLimiter } from '../ratelimit/types.js';
import type { Account } from '../store/types.js';

export type { RateLimitDecision } from '../ratelimit/types.js';

/** One rate limit: the counter's key, the policy name in the headers, requests per window, and who it applies to. */
export interface Limit {
  key: string;
  policy: string;
  requests: number;
  windowSeconds: number;
  who: string;
}

export type CredentialKind = 'api_key' | 'access_token' | 'sign_in_link' | 'admin_token' | 'metrics_token';

export type LimitsConfig = Pick<
  Config,
  | 'RATE_LIMIT_ANONYMOUS'
  | 'RATE_LIMIT_WINDOW_SECONDS'
  | 'RATE_LIMIT_MAIL_PER_HOUR'
  | 'RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR'
  | 'RATE_LIMIT_AUTH_FAILURES'
>;

const FAILURE_WINDOW_SECONDS = 60;

const NAMES: Record<CredentialKind, string> = {
  api_key: 'API keys',
  access_token: 'access tokens',
  sign_in_link: 'sign-in links',
  admin_token: 'admin tokens',
  metrics_token: 'metrics tokens',
};

/**
 * The counter of one account, shared by all its keys (and by every process, in Redis): named by a hash of the
 * account's id, address and creation time, so it stays apart from another database's account with the same id.
 */
function accountCounter(account: Account): string {
  return hashSecret(`${account.id}:${account.email}:${account.created_at}`).slice(0, 32);
}

/**
 * The counters of one failed attempt: its client IP and its target, what it was aimed at (the key or link presented,
 * the admin token configured), named by a prefix of its hash, never in the clear.
 */
function failureCounters(kind: CredentialKind, ip: string, target: string): { key: string; who: string }[] {
  return [
    { key: `fail:${kind}:ip:${ip}`, who: 'from this address' },
    { key: `fail:${kind}:target:${hashSecret(target).slice(0, 32)}`, who: 'against this target' },
  ];
}

function throttled(kind: CredentialKind, limit: number, who: string, decision: RateLimitDecision): AppError {
  const seconds = decision.resetSeconds;
  return new AppError(
    'rate_limited',
    `too many failed ${NAMES[kind]} ${who}: ${limit} failures per ${FAILURE_WINDOW_SECONDS} s; retry in ${seconds} s`,
    {
      retryHint: `retry after ${seconds} s with a valid credential`,
      headers: { 'Retry-After': String(seconds) },
      extra: { limit, window_seconds: FAILURE_WINDOW_SECONDS, retry_after_seconds: seconds },
    },
  );
}

export function createLimits(deps: { rateLimiter: RateLimiter; config: LimitsConfig; plans: PlanTable }) {
  const { rateLimiter, config, plans } = deps;

  /**
   * Counts one failed attempt against its IP and its target and returns the error to answer: `failure` itself (the
   * 401 or 400) while both counts are within the limit, a 429 rate_limited with Retry-After past it.
   */
  async function failedCredential(
    kind: CredentialKind,
    ip: string,
    target: string,
    failure: AppError,
  ): Promise<AppError> {
    const limit = config.RATE_LIMIT_AUTH_FAILURES;
    if (limit === 0) return failure;
    const decisions = await Promise.all(
      failureCounters(kind, ip, target).map(async ({ key, who }) => ({
        who,
        decision: await rateLimiter.hit(key, limit, FAILURE_WINDOW_SECONDS),
      })),
    );
    const over = decisions.find(({ decision }) => !decision.allowed);
    return over ? throttled(kind, limit, over.who, over.decision) : failure;
  }

  /**
   * Throws 429 before a credential is even compared when its IP or target has used up its failures: for secrets an
   * operator chooses (the admin token), so a client past the limit cannot learn whether a guess was right.
   */
  async function refuseWhileThrottled(kind: CredentialKind, ip: string, target: string): Promise<void> {
    const limit = config.RATE_LIMIT_AUTH_FAILURES;
    if (limit === 0) return;
    for (const { key, who } of failureCounters(kind, ip, target)) {
      const decision = await rateLimiter.peek(key, limit, FAILURE_WINDOW_SECONDS);
      if (!decision.allowed) throw throttled(kind, limit, who, decision);
    }
  }

  return {
    /** Counts one request against `limit`: at once when the counts are in this process, so a hook needs no promise. */
    count: (limit: Limit): RateLimitDecision | Promise<RateLimitDecision> =>
      rateLimiter.hit(limit.key, limit.requests, limit.windowSeconds),

    /** Callers without a key: RATE_LIMIT_ANONYMOUS per window, per client address. */
    anonymous: (ip: string): Limit => ({
      key: `ip:${ip}`,
      policy: 'anonymous',
      requests: config.RATE_LIMIT_ANONYMOUS,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      who: 'per IP address without an API key (sign up for higher limits)',
    }),

    /**
     * The plan's requests per window, counted per account: `via` 'key' for every request with one of its API keys,
     * 'session' for its session-cookie routes (a count of their own, so busy agents do not lock the dashboard out).
     */
    account: (account: Account, via: 'key' | 'session'): Limit => ({
      key: `${via === 'key' ? 'account' : 'session'}:${accountCounter(account)}`,
      policy: account.plan,
      requests: plans[account.plan].requestsPerWindow,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      who:
        via === 'key'
          ? `per account on the ${account.plan} plan (all of its API keys together)`
          : `per account on the ${account.plan} plan for the session routes`,
    }),

    /** Sign-up and sign-in send mail: RATE_LIMIT_MAIL_PER_HOUR per client address. */
    mail: (ip: string): Limit => ({
      key: `mail:${ip}`,
      policy: 'signin',
      requests: config.RATE_LIMIT_MAIL_PER_HOUR,
      windowSeconds: 3600,
      who: 'per IP address for sign-up and sign-in e-mails',
    }),

    /**
     * OAuth client registration stores a client for anyone who asks (RFC 7591's open registration): at most
     * RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR per client address, so that no one fills the store.
     */
    registration: (ip: string): Limit => ({
      key: `register:${ip}`,
      policy: 'oauth_register',
      requests: config.RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR,
      windowSeconds: 3600,
      who: 'per IP address for OAuth client registrations',
    }),

    failedCredential,

    /**
     * A token the operator configured (ADMIN_TOKEN, METRICS_TOKEN) against the one presented: refused while the
     * client or the token is throttled, before the comparison; a wrong one is counted and throws `failure` (or 429).
     */
    async checkOperatorToken(
      kind: 'admin_token' | 'metrics_token',
      ip: string,
      presented: string,
      token: string,
      failure: () => AppError,
    ): Promise<void> {
      await refuseWhileThrottled(kind, ip, token);
      if (!equalSecrets(presented, token)) throw await failedCredential(kind, ip, token, failure());
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
