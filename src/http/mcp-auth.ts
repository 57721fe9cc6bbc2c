// Who calls POST /mcp: an API key (X-Service-Key, or as a bearer token) or an OAuth access token a connected
// application got by signing its user in. Without either, 401 with the WWW-Authenticate header that starts an MCP
// client's OAuth flow (RFC 9728: where the protected resource's metadata is).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { AppError } from '../errors.js';
import { checkApiKey, deliveryOf, documentAuth, enforceRateLimit, presentedKey } from './auth.js';
import { API_KEY_PREFIX } from '../operations/accounts.js';

/** Where a client reads how to get a token for this resource (the path-aware form of RFC 9728 §3.1). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

function bearerOf(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

export function requireMcpCaller(app: FastifyInstance, deps: AppDeps): void {
  const metadata = `${deps.config.PUBLIC_BASE_URL}${RESOURCE_METADATA_PATH}`;
  const challenge = (error?: string) =>
    `Bearer resource_metadata="${metadata}"${error ? `, error="${error}"` : ''}, scope="fetch search"`;

  app.addHook('onRoute', (route) => documentAuth(route, [{ ServiceKey: [] }, { OAuth: [] }], [401, 402, 429]));
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return; // a browser's preflight carries no credentials
    const bearer = bearerOf(request);
    const key = presentedKey(request) ?? (bearer?.startsWith(API_KEY_PREFIX) ? bearer : undefined);
    if (key !== undefined) {
      const { account, keyId } = await checkApiKey(deps, request, key);
      await enforceRateLimit(deps, reply, deps.operations.limits.account(account, 'key'));
      request.caller = { kind: 'account', account, keyId, delivery: deliveryOf(reply) };
      return;
    }
    if (bearer === undefined)
      throw new AppError(
        'key_required',
        'this endpoint needs an OAuth access token (MCP clients sign in by themselves from the WWW-Authenticate ' +
          'header) or an API key in X-Service-Key',
        { headers: { 'WWW-Authenticate': challenge() } },
      );
    const holder = await deps.operations.oauth.verifyAccessToken(bearer);
    if (!holder) {
      const failure = new AppError(
        'invalid_access_token',
        'the access token is unknown, expired or revoked; refresh it or sign in again',
        { headers: { 'WWW-Authenticate': challenge('invalid_token') } },
      );
      throw await deps.operations.limits.failedCredential('access_token', request.ip, bearer, failure);
    }
    await enforceRateLimit(deps, reply, deps.operations.limits.account(holder.account, 'key'));
    request.caller = {
      kind: 'account',
      account: holder.account,
      keyId: null,
      clientId: holder.clientId,
      scopes: holder.scopes,
      delivery: deliveryOf(reply),
    };
  });
}
