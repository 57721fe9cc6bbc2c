// /auth: magic-link sign-in and the session cookie, and the keys and usage of the signed-in account.
// GET /auth/verify shows browsers a confirmation page whose button spends the token, so link scanners cannot.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redemption } from '../../operations/accounts.js';
import { AppError } from '../../errors.js';
import { LoginRequest, Message, SessionOut, VerifyBody, VerifyQuery, WhoamiOut } from '../../contract/account.js';
import { mimeOf } from '../../util/media-type.js';
import { acceptsMedia } from '../accept.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';
import {
  clearSessionCookie,
  readCookie,
  refuseCrossSite,
  requireSession,
  SESSION_COOKIE,
  setSessionCookie,
  takeConsent,
} from '../session.js';
import { limitMailRequests } from './account.js';
import { accountResourceRoutes } from './account-resources.js';
import { confirmPage, failedPage, LINK_PAGE_HEADERS } from './auth-pages.js';

const TAGS = ['session'];
const LOGIN_MESSAGE = 'If this address has an account, a sign-in link is on its way. It works once, for 15 minutes.';

const INVALID_TOKEN: Record<Exclude<Redemption, { ok: true }>['reason'], string> = {
  malformed: 'this is not a sign-in token; open the link from the e-mail as it is',
  unknown: 'this sign-in link is not valid; request a new one (POST /auth/login)',
  used: 'this sign-in link has already been used; request a new one (POST /auth/login)',
  expired: 'this sign-in link has expired (they last 15 minutes); request a new one (POST /auth/login)',
};

const wantsHtml = (request: FastifyRequest) => acceptsMedia(request.headers.accept, 'text/html');
const isForm = (request: FastifyRequest) =>
  mimeOf(request.headers['content-type']) === 'application/x-www-form-urlencoded';

export const authRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const accounts = deps.operations.accounts;
  const base = deps.config.PUBLIC_BASE_URL;

  // The confirmation page posts an HTML form; only this scope parses form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /**
   * The error for a link that did not work: 400 invalid_token, or 429 once the client IP or the token has had
   * RATE_LIMIT_AUTH_FAILURES failures this minute (a malformed token never reaches the database and is not counted).
   */
  async function linkFailure(request: FastifyRequest, token: string, reason: keyof typeof INVALID_TOKEN) {
    const failure = new AppError('invalid_token', INVALID_TOKEN[reason]);
    return reason === 'malformed'
      ? failure
      : deps.operations.limits.failedCredential('sign_in_link', request.ip, token, failure);
  }

  /** A failed link as the browser's page (400, or 429 with Retry-After) or as the JSON error. */
  async function refuseLink(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    reason: keyof typeof INVALID_TOKEN,
    browser: boolean,
  ) {
    const error = await linkFailure(request, token, reason);
    if (!browser) throw error;
    return reply
      .code(error.status)
      .headers({ ...LINK_PAGE_HEADERS, ...error.options.headers })
      .type('text/html; charset=utf-8')
      .send(failedPage(error.detail));
  }

  async function redeem(token: string, request: FastifyRequest, reply: FastifyReply, browser: boolean) {
    const result = await accounts.redeemMagicLink(token);
    if (!result.ok) return refuseLink(request, reply, token, result.reason, browser);
    setSessionCookie(reply, result.sessionToken, base);
    void reply.header('cache-control', 'no-store');
    if (browser)
      return reply
        .code(303)
        .header('location', takeConsent(request, reply, base) ?? '/dashboard')
        .send();
    return {
      account: await accounts.describe(result.account),
      message: 'signed in; the service_session cookie authenticates /auth routes for 30 days',
    };
  }

  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'E-mail a sign-in link',
        description:
          'Always 202, whether or not the address has an account; a registered address gets a ' +
          'one-time link valid for 15 minutes.',
        tags: TAGS,
        body: LoginRequest,
        response: { ...responses(Message, [429]), 202: Message },
      },
    },
    async (request, reply) => {
      await limitMailRequests(deps, request.ip, reply);
      await accounts.requestLogin(request.body.email, request.id);
      return reply.code(202).send({ message: LOGIN_MESSAGE });
    },
  );

  app.get(
    '/auth/verify',
    {
      // A HEAD must never spend a token.
      exposeHeadRoute: false,
      schema: {
        summary: 'Exchange a sign-in token for a session cookie',
        description:
          'JSON clients get 200 and `Set-Cookie: service_session=…; HttpOnly; SameSite=Lax; Path=/; ' +
          'Max-Age=2592000`. Browsers (Accept: text/html) get a confirmation page whose button POSTs ' +
          'the token, so link scanners that open e-mail links cannot spend it. Used, expired or ' +
          'unknown tokens are 400 invalid_token.',
        tags: TAGS,
        querystring: VerifyQuery,
        response: responses(SessionOut, [400, 429]),
      },
    },
    async (request, reply) => {
      const token = request.query.token;
      if (!wantsHtml(request)) return redeem(token, request, reply, false);
      const check = await accounts.checkMagicLink(token);
      if (!check.ok) return refuseLink(request, reply, token, check.reason, true);
      return reply.headers(LINK_PAGE_HEADERS).type('text/html; charset=utf-8').send(confirmPage(token));
    },
  );

  app.post(
    '/auth/verify',
    {
      schema: {
        summary: 'Exchange a sign-in token for a session cookie (the confirmation form)',
        description:
          'Takes {token} as JSON (200 with the cookie) or as the confirmation form (303 to ' +
          '/dashboard with the cookie).',
        tags: TAGS,
        body: VerifyBody,
        response: {
          ...responses(SessionOut, [400, 403, 429]),
          303: { type: 'null', description: 'Signed in; go to /dashboard.' },
        },
      },
    },
    async (request, reply) => {
      refuseCrossSite(request, base);
      return redeem(request.body.token, request, reply, isForm(request));
    },
  );

  // whoami and logout take the cookie if there is one: without a session they answer 200 saying so (the pages ask),
  // and a stale cookie is cleared.
  const SESSION_OPTIONAL: Record<string, string[]>[] = [{ SessionCookie: [] }, {}];

  app.post(
    '/auth/logout',
    {
      schema: {
        summary: 'Sign out: ends the session (if any) and clears the cookie',
        tags: TAGS,
        security: SESSION_OPTIONAL,
        response: responses(Message, [403]),
      },
    },
    async (request, reply) => {
      refuseCrossSite(request, base);
      const check = await accounts.verifySession(readCookie(request, SESSION_COOKIE));
      if (check.ok) await accounts.deleteSession(check.sessionId);
      clearSessionCookie(reply, base);
      return { message: check.ok ? 'signed out' : 'nobody was signed in' };
    },
  );

  app.get(
    '/auth/whoami',
    {
      schema: {
        summary: 'The signed-in account, or account null when nobody is signed in',
        tags: TAGS,
        security: SESSION_OPTIONAL,
        response: responses(WhoamiOut),
      },
    },
    async (request, reply) => {
      const token = readCookie(request, SESSION_COOKIE);
      const check = await accounts.verifySession(token);
      if (check.ok) return { account: await accounts.describe(check.account), message: 'signed in' };
      if (token !== undefined) clearSessionCookie(reply, base);
      return { account: null, message: 'nobody is signed in' };
    },
  );

  await app.register(async (instance) => {
    requireSession(instance, deps);
    const signedIn = instance.withTypeProvider<TypeBoxTypeProvider>();

    await signedIn.register(accountResourceRoutes, {
      deps,
      base: '/auth',
      tags: TAGS,
      authenticate: () => {},
      accountOf: (request) => request.session.account,
    });
  });
};
