// GET and POST /oauth/consent: where the authorization endpoint sends a browser. Without a session the user signs in
// first (the sign-in link brings the browser back here); with one, Allow sends the browser back to the application
// with a code, Deny with access_denied. The POST passes the same cross-site check as every cookie-authenticated form.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppDeps } from '../http/app-deps.js';
import { readCookie, rememberConsent, SESSION_COOKIE } from '../http/session.js';
import { consentGonePage, consentPage, consentSignInPage } from './consent-view.js';
import { acceptForms, field } from './forms.js';
import { sendPage } from './layout.js';

const PRIVATE = { 'cache-control': 'no-store' };

export const consentRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  const base = deps.config.PUBLIC_BASE_URL;
  const { oauth, accounts } = deps.operations;
  acceptForms(app, base);

  const signedIn = async (request: FastifyRequest) => {
    const session = await accounts.verifySession(readCookie(request, SESSION_COOKIE));
    return session.ok ? session.account : null;
  };

  const schema = { tags: ['pages'], summary: "The consent page of an MCP client's sign-in (OAuth)" };
  app.get('/oauth/consent', { schema }, async (request, reply) => {
    const asked = (request.query as { request?: unknown }).request;
    const id = typeof asked === 'string' ? asked : '';
    const consent = id ? await oauth.consentRequest(id) : null;
    if (!consent) return sendPage(reply, consentGonePage(base), 400, PRIVATE);
    const account = await signedIn(request);
    if (!account) {
      rememberConsent(reply, id, base);
      return sendPage(reply, consentSignInPage(base, consent.clientName), 200, PRIVATE);
    }
    return sendPage(reply, consentPage(base, id, consent, account.email), 200, PRIVATE);
  });

  app.post('/oauth/consent', { schema: { hide: true } }, async (request, reply) => {
    const account = await signedIn(request);
    const id = field(request, 'request');
    if (!account)
      return reply
        .code(303)
        .header('location', `/oauth/consent?request=${encodeURIComponent(id)}`)
        .send();
    const next = await oauth.decide(id, account, field(request, 'decision') === 'allow');
    if (!next) return sendPage(reply, consentGonePage(base), 400, PRIVATE);
    return reply.code(303).header('location', next).header('cache-control', 'no-store').send();
  });
};
