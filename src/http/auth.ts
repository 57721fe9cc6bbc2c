// Who is calling: X-Service-Key → an account (billed) or, without a key, the anonymous tier (per-IP limits, not
// billed). One hook for the metered routes (fetch, batch, estimate, cache, search, mcp) and one for /account.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiKeyCheck } from '../accounts/keys.js';
import type { Caller, Meter } from '../accounts/meter.js';
import { AppError } from '../errors.js';
import type { Services } from '../services/index.js';
import type { Account, PlanKey } from '../store/types.js';
import { ErrorResponse } from './schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on metered and /account routes. */
    caller: Caller;
    /** Set on metered routes: runs and bills this caller's operations. */
    meter: Meter;
  }
}

const WWW_AUTHENTICATE = 'ApiKey header="X-Service-Key"';

const KEY_FAILURES: Record<Exclude<ApiKeyCheck, { ok: true }>['reason'], string> = {
  missing: 'this endpoint needs an API key in the X-Service-Key header; get one with POST /account/signup',
  malformed: 'the X-Service-Key header does not hold a Fetchdown API key (they start with fd_live_)',
  unknown: 'the API key in X-Service-Key is not valid',
  revoked: 'the API key in X-Service-Key has been revoked; use another key or create one (POST /auth/keys, or POST /account/keys with a live key)',
};

export function invalidApiKey(reason: keyof typeof KEY_FAILURES): AppError {
  return new AppError('invalid_api_key', KEY_FAILURES[reason], { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
}

export function presentedKey(request: FastifyRequest): string | undefined {
  const value = request.headers['x-service-key'];
  const key = (Array.isArray(value) ? value[0] : value)?.trim();
  return key === '' ? undefined : key;
}

/** One rate limit: the counter's key, the policy name in the headers, requests per window, and who it applies to. */
export interface Limit {
  key: string;
  policy: string;
  requests: number;
  windowSeconds: number;
  who: string;
}

/** Counts the request against its limit and sets RateLimit-Policy / RateLimit (draft-ietf-httpapi-ratelimit-headers). */
export async function enforceRateLimit(services: Services, reply: FastifyReply, limit: Limit): Promise<void> {
  if (limit.requests === 0) return;
  const decision = await services.rateLimiter.hit(limit.key, limit.requests, limit.windowSeconds);
  const headers = {
    'RateLimit-Policy': `"${limit.policy}";q=${limit.requests};w=${limit.windowSeconds}`,
    RateLimit: `"${limit.policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) {
    throw new AppError('rate_limited', `rate limit reached: ${limit.requests} requests per ${limit.windowSeconds} s ${limit.who}; retry in ${decision.resetSeconds} s`, {
      retryHint: `retry after ${decision.resetSeconds} s`,
      headers: { ...headers, 'Retry-After': String(decision.resetSeconds) },
      extra: { limit: limit.requests, window_seconds: limit.windowSeconds, retry_after_seconds: decision.resetSeconds },
    });
  }
  void reply.headers(headers);
}

function anonymousLimit(services: Services, ip: string): Limit {
  const { RATE_LIMIT_ANONYMOUS: requests, RATE_LIMIT_WINDOW_SECONDS: windowSeconds } = services.config;
  return { key: `ip:${ip}`, policy: 'anonymous', requests, windowSeconds, who: 'per IP address without an API key (sign up for higher limits)' };
}

function keyLimit(services: Services, plan: PlanKey, keyHash: string): Limit {
  // Keyed by a prefix of the key's hash, not its id: unique even across databases that share one Redis.
  const requests = services.accounts.plans[plan].requestsPerWindow;
  return { key: `key:${keyHash.slice(0, 32)}`, policy: plan, requests, windowSeconds: services.config.RATE_LIMIT_WINDOW_SECONDS, who: `per key on the ${plan} plan` };
}

async function authenticateKey(services: Services, request: FastifyRequest, reply: FastifyReply, allowAnonymous: boolean): Promise<Caller> {
  const presented = presentedKey(request);
  let caller: Caller;
  let limit: Limit;
  if (presented === undefined && allowAnonymous) {
    caller = { kind: 'anonymous', ip: request.ip };
    limit = anonymousLimit(services, request.ip);
  } else {
    const check = await services.accounts.verifyApiKey(presented);
    if (!check.ok) throw invalidApiKey(check.reason);
    caller = { kind: 'account', account: check.account, keyId: check.keyId };
    limit = keyLimit(services, check.account.plan, check.keyHash);
  }
  await enforceRateLimit(services, reply, limit);
  request.caller = caller;
  return caller;
}

/** Responses every authenticated route can give, added to each route's schema for /openapi.json. */
function documentAuth(route: RouteOptions, security: Record<string, string[]>[], statuses: number[]): void {
  const schema = route.schema ?? {};
  if ((schema as { hide?: boolean }).hide) return;
  const response = { ...((schema.response as Record<number, unknown>) ?? {}) };
  for (const status of statuses) response[status] ??= Type.Ref(ErrorResponse);
  route.schema = { ...schema, response, security } as typeof route.schema;
}

/**
 * For the scope of the metered routes: identifies the caller (401 for a bad key; anonymous without one when
 * ANONYMOUS_ACCESS is on), applies its rate limit (429), and gives the request a meter that bills the account.
 */
export function meterCallers(app: FastifyInstance, services: Services): void {
  const anonymous = services.config.ANONYMOUS_ACCESS;
  app.addHook('onRoute', (route) => documentAuth(route, anonymous ? [{ ServiceKey: [] }, {}] : [{ ServiceKey: [] }], [401, 402, 429]));
  app.addHook('onRequest', async (request, reply) => {
    const caller = await authenticateKey(services, request, reply, anonymous);
    request.meter = services.accounts.meterFor(caller);
  });
}

/** For the /account routes other than sign-up: a valid, unrevoked key is required (401 with WWW-Authenticate). */
export function requireApiKey(app: FastifyInstance, services: Services): void {
  app.addHook('onRoute', (route) => documentAuth(route, [{ ServiceKey: [] }], [401, 429]));
  app.addHook('onRequest', async (request, reply) => {
    await authenticateKey(services, request, reply, false);
  });
}

/** The account a request behind requireApiKey was authenticated as. */
export function accountOf(request: FastifyRequest): Account {
  if (request.caller?.kind !== 'account') throw invalidApiKey('missing');
  return request.caller.account;
}

/** Fastify's trustProxy from TRUST_PROXY: true, false, or a comma-separated list of addresses, CIDRs and range names. */
export function trustProxyOption(value: string): boolean | string {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return value;
}
