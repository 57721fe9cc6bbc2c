// Who is calling: X-Service-Key → an account (billed) or, without a key, the anonymous tier (per-IP limits, not
// billed). One hook for the metered routes (fetch, batch, estimate, cache, search, crawl) and one for /account; the
// operations bill request.caller.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../contract/fetch.js';
import type { AppDeps } from './app-deps.js';
import { AppError } from '../errors.js';
import { createDelivery, type Delivery } from '../util/delivery.js';
import type { Caller } from '../operations/index.js';
import type { Limit, RateLimitDecision } from '../operations/limits.js';
import type { Account, ApiKeyCheck } from '../operations/accounts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on metered and /account routes: whom the operations serve and bill. */
    caller: Caller;
  }
}

const WWW_AUTHENTICATE = 'ApiKey header="X-Service-Key"';

const KEY_FAILURES: Record<Exclude<ApiKeyCheck, { ok: true }>['reason'], string> = {
  missing: 'this endpoint needs an API key in the X-Service-Key header; get one with POST /account/signup',
  malformed: 'the X-Service-Key header does not hold a Fetchdown API key (they start with fd_live_)',
  unknown: 'the API key in X-Service-Key is not valid',
  revoked:
    'the API key in X-Service-Key has been revoked; use another key or create one (POST ' +
    '/auth/keys, or POST /account/keys with a live key)',
};

export function invalidApiKey(reason: keyof typeof KEY_FAILURES): AppError {
  return new AppError('invalid_api_key', KEY_FAILURES[reason], { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
}

export function presentedKey(request: FastifyRequest): string | undefined {
  const value = request.headers['x-service-key'];
  const key = (Array.isArray(value) ? value[0] : value)?.trim();
  return key === '' ? undefined : key;
}

/**
 * Counts the request against its limit and sets RateLimit-Policy / RateLimit (draft-ietf-httpapi-ratelimit-headers).
 * Returns nothing when the count is kept in this process, so the hook of every metered request needs no promise.
 */
export function enforceRateLimit(deps: AppDeps, reply: FastifyReply, limit: Limit): void | Promise<void> {
  if (limit.requests === 0) return;
  const decision = deps.operations.limits.count(limit);
  if (decision instanceof Promise) return decision.then((counted) => applyDecision(reply, limit, counted));
  applyDecision(reply, limit, decision);
}

function applyDecision(reply: FastifyReply, limit: Limit, decision: RateLimitDecision): void {
  const headers = {
    'RateLimit-Policy': `"${limit.policy}";q=${limit.requests};w=${limit.windowSeconds}`,
    RateLimit: `"${limit.policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) {
    throw new AppError(
      'rate_limited',
      `rate limit reached: ${limit.requests} requests per ${limit.windowSeconds} s ${limit.who}; ` +
        `retry in ${decision.resetSeconds} s`,
      {
        retryHint: `retry after ${decision.resetSeconds} s`,
        headers: { ...headers, 'Retry-After': String(decision.resetSeconds) },
        extra: {
          limit: limit.requests,
          window_seconds: limit.windowSeconds,
          retry_after_seconds: decision.resetSeconds,
        },
      },
    );
  }
  void reply.headers(headers);
}

/**
 * The account of a presented API key, or the error to answer: 401 invalid_api_key, or 429 once the client IP or the
 * key has had RATE_LIMIT_AUTH_FAILURES unknown or revoked keys this minute.
 */
export async function checkApiKey(
  deps: AppDeps,
  request: FastifyRequest,
  presented: string | undefined,
): Promise<{ account: Account; keyId: number }> {
  const check = await deps.operations.accounts.verifyApiKey(presented);
  if (check.ok) return check;
  const failure = invalidApiKey(check.reason);
  if (presented === undefined || (check.reason !== 'unknown' && check.reason !== 'revoked')) throw failure;
  throw await deps.operations.limits.failedCredential('api_key', request.ip, presented, failure);
}

/** Sets request.caller once its key (or the anonymous tier) is checked and the request counted. */
function authenticate(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  allowAnonymous: boolean,
): void | Promise<void> {
  const presented = presentedKey(request);
  if (presented === undefined && allowAnonymous) {
    const ip = request.ip; // a getter that parses the forwarding headers each time it is read
    const counted = enforceRateLimit(deps, reply, deps.operations.limits.anonymous(ip));
    const caller: Caller = { kind: 'anonymous', ip };
    if (counted) return counted.then(() => void (request.caller = caller));
    request.caller = caller;
    return;
  }
  return checkApiKey(deps, request, presented).then(async ({ account, keyId }) => {
    await enforceRateLimit(deps, reply, deps.operations.limits.account(account, 'key'));
    request.caller = { kind: 'account', account, keyId, delivery: deliveryOf(reply) };
  });
}

/**
 * The answer's delivery: it has left once Node handed the whole response to the network ('finish'), and cannot when
 * the connection closed first. Charges wait for it, so a caller who never got the answer is not charged. Both events,
 * as a response made by app.inject (the dashboard's calls) emits 'finish' and no 'close'.
 */
export function deliveryOf(reply: FastifyReply): Delivery {
  const raw = reply.raw;
  const delivery = createDelivery();
  raw.once('finish', () => delivery.end(true));
  raw.once('close', () => delivery.end(raw.writableFinished));
  return delivery;
}

/** An onRequest hook that authenticates: a callback hook, as the anonymous path needs no promise (a cached /fetch). */
function authenticating(deps: AppDeps, allowAnonymous: boolean) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    let pending: void | Promise<void>;
    try {
      pending = authenticate(deps, request, reply, allowAnonymous);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}

/** Responses every authenticated route can give, added to each route's schema for /openapi.json. */
export function documentAuth(route: RouteOptions, security: Record<string, string[]>[], statuses: number[]): void {
  const schema = route.schema ?? {};
  if ((schema as { hide?: boolean }).hide) return;
  const response = { ...((schema.response as Record<number, unknown>) ?? {}) };
  for (const status of statuses) response[status] ??= Type.Ref(ErrorResponse);
  route.schema = { ...schema, response, security };
}

/**
 * For the scope of the metered routes: identifies the caller (401 for a bad key; anonymous without one when
 * ANONYMOUS_ACCESS is on) and applies its rate limit (429); the operations bill request.caller.
 */
export function meterCallers(app: FastifyInstance, deps: AppDeps): void {
  const anonymous = deps.config.ANONYMOUS_ACCESS;
  app.addHook('onRoute', (route) =>
    documentAuth(route, anonymous ? [{ ServiceKey: [] }, {}] : [{ ServiceKey: [] }], [401, 402, 429]),
  );
  app.addHook('onRequest', authenticating(deps, anonymous));
}

/** For the /account routes other than sign-up: a valid, unrevoked key is required (401 with WWW-Authenticate). */
export function requireApiKey(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('onRoute', (route) => documentAuth(route, [{ ServiceKey: [] }], [401, 429]));
  app.addHook('onRequest', authenticating(deps, false));
}

/** The account a request behind requireApiKey was authenticated as. */
export function accountOf(request: FastifyRequest): Account {
  if (request.caller?.kind !== 'account') throw invalidApiKey('missing');
  return request.caller.account;
}

/**
 * Fastify's trustProxy from TRUST_PROXY: true, false, or a comma-separated list of addresses, CIDRs and range names.
 */
export function trustProxyOption(value: string): boolean | string {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return value;
}
