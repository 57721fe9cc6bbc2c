// The session cookie (service_session) and the checks for cookie-authenticated routes: a valid session (401
// invalid_session) and, for state-changing methods, a same-origin request (403 cross_site_request).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import type { AppDeps } from './app-deps.js';
import { enforceRateLimit } from './auth.js';
import { SESSION_TTL_SECONDS, type Account } from '../operations/accounts.js';
import { ErrorResponse } from '../contract/fetch.js';

export const SESSION_COOKIE = 'service_session';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on routes behind requireSession. */
    session: { account: Account; sessionId: number };
  }
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    // Our values are base64url, never percent-encoded: taken as sent (a malformed one simply fails verification).
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookieAttributes(publicBaseUrl: string): string {
  return `HttpOnly; SameSite=Lax; Path=/${publicBaseUrl.startsWith('https://') ? '; Secure' : ''}`;
}

export function setSessionCookie(reply: FastifyReply, token: string, publicBaseUrl: string): void {
  void reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${token}; ${cookieAttributes(publicBaseUrl)}; Max-Age=${SESSION_TTL_SECONDS}`,
  );
}

export function clearSessionCookie(reply: FastifyReply, publicBaseUrl: string): void {
  void reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(publicBaseUrl)}; Max-Age=0`);
}

/** The consent request a browser was signing in for: the sign-in link's confirmation goes back to it. */
const CONSENT_COOKIE = 'fd_consent';
const CONSENT_COOKIE_SECONDS = 15 * 60;
const CONSENT_ID = /^[A-Za-z0-9_-]{43}$/;

export function rememberConsent(reply: FastifyReply, requestId: string, publicBaseUrl: string): void {
  void reply.header(
    'set-cookie',
    `${CONSENT_COOKIE}=${requestId}; ${cookieAttributes(publicBaseUrl)}; Max-Age=${CONSENT_COOKIE_SECONDS}`,
  );
}

/** Where a browser that just signed in goes: the consent page it came from (the cookie is spent), or undefined. */
export function takeConsent(request: FastifyRequest, reply: FastifyReply, publicBaseUrl: string): string | undefined {
  const id = readCookie(request, CONSENT_COOKIE);
  if (id === undefined) return undefined;
  void reply.header('set-cookie', `${CONSENT_COOKIE}=; ${cookieAttributes(publicBaseUrl)}; Max-Age=0`);
  return CONSENT_ID.test(id) ? `/oauth/consent?request=${id}` : undefined;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * 403 when a browser says the request comes from another site: Sec-Fetch-Site other than same-origin/none, or (without
 * Sec-Fetch-Site) an Origin other than PUBLIC_BASE_URL's or the one the request was addressed to. Clients that send
 * neither (curl,
 * SDKs) are not browsers and pass.
 */
export function refuseCrossSite(request: FastifyRequest, publicBaseUrl: string): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const sameOrigins = new Set([new URL(publicBaseUrl).origin, `${request.protocol}://${request.host}`]);
  // Sec-Fetch-Site, when sent, is the browser's own verdict and decides: a same-origin page with Referrer-Policy
  // no-referrer (the sign-in confirmation) posts with Origin: null. Origin is the check for browsers without it.
  const crossSite =
    site !== undefined ? site !== 'same-origin' && site !== 'none' : origin !== undefined && !sameOrigins.has(origin);
  if (crossSite) {
    throw new AppError(
      'cross_site_request',
      'this request came from another site; session-authenticated changes are accepted from this site only',
      {
        extra: { origin: origin ?? null, sec_fetch_site: site ?? null },
      },
    );
  }
}

/**
 * For the scope of the cookie-authenticated routes: a live session is required, changes come from this site, and the
 * account's plan limits its requests (429).
 */
export function requireSession(app: FastifyInstance, deps: AppDeps): void {
  const base = deps.config.PUBLIC_BASE_URL;
  app.addHook('onRoute', (route) => {
    const schema = route.schema ?? {};
    const response = {
      ...((schema.response as Record<number, unknown>) ?? {}),
      401: Type.Ref(ErrorResponse),
      403: Type.Ref(ErrorResponse),
      429: Type.Ref(ErrorResponse),
    };
    route.schema = { ...schema, response, security: [{ SessionCookie: [] }] };
  });
  app.addHook('onRequest', async (request, reply) => {
    if (STATE_CHANGING.has(request.method)) refuseCrossSite(request, base);
    const token = readCookie(request, SESSION_COOKIE);
    const check = await deps.operations.accounts.verifySession(token);
    if (!check.ok) {
      if (token !== undefined) clearSessionCookie(reply, base);
      const detail =
        check.reason === 'missing'
          ? 'sign in first: POST /auth/login sends a sign-in link; the session cookie service_session comes with it'
          : 'the session has expired or was signed out; sign in again (POST /auth/login)';
      throw new AppError('invalid_session', detail);
    }
    await enforceRateLimit(deps, reply, deps.operations.limits.account(check.account, 'session'));
    request.session = { account: check.account, sessionId: check.sessionId };
  });
}
