// The OAuth authorization server of POST /mcp: its metadata (RFC 9728 for the resource, RFC 8414 for the server) and
// the MCP SDK's handlers for authorize, token, registration (RFC 7591) and revocation (RFC 7009). The SDK's own rate
// limiters are off: they count per process, and the processes behind a load balancer share ours (RATE_LIMIT_*).
// The consent page the authorize handler sends browsers to is a page (src/pages/consent.ts).
import type { FastifyPluginAsync } from 'fastify';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { AppDeps } from '../app-deps.js';
import { enforceRateLimit } from '../auth.js';
import { mountExpress } from '../express-glue.js';
import { RESOURCE_METADATA_PATH } from '../mcp-auth.js';

export const oauthRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  const { oauth } = deps.operations;
  const provider = oauth.provider;

  // Any origin may read the metadata: browser-based MCP clients discover the server from their own pages.
  const metadata = (path: string, body: () => object) =>
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600').send(body()),
    );
  metadata(RESOURCE_METADATA_PATH, oauth.protectedResource);
  metadata('/.well-known/oauth-protected-resource', oauth.protectedResource);
  metadata('/.well-known/oauth-authorization-server', oauth.authorizationServer);

  // Registration is open to anyone and stores a row: counted per client address before the SDK's handler runs.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'POST' && request.routeOptions.url === '/oauth/register')
      await enforceRateLimit(deps, reply, deps.operations.limits.registration(request.ip));
  });

  await mountExpress(app, {
    '/oauth/authorize': authorizationHandler({ provider, rateLimit: false }),
    '/oauth/token': tokenHandler({ provider, rateLimit: false }),
    '/oauth/register': clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false }),
    '/oauth/revoke': revocationHandler({ provider, rateLimit: false }),
  });
};
