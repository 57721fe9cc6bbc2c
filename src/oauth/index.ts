// The OAuth 2.1 authorization server of the remote MCP endpoint (the MCP authorization spec, 2025-11-25): the MCP SDK's
// handlers do the protocol (validation, PKCE, error codes); this is the provider they call, over our store.
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { Config } from '../config.js';
import type { SafeClient } from '../net/safe-client.js';
import type { Store } from '../store/db.js';
import type { Clock } from '../util/clock.js';
import { createClients } from './clients.js';
import { createGrants, SCOPES } from './grants.js';

export { SCOPE_SUMMARIES, SCOPES, type ConnectedApp } from './grants.js';
export { ACCESS_TOKEN_PREFIX, type TokenHolder } from './tokens.js';

/** Where the consent page is, relative to this server: the SDK's authorize handler sends browsers there. */
export const CONSENT_PATH = '/oauth/consent';

export function createOAuth(
  config: Pick<
    Config,
    | 'PUBLIC_BASE_URL'
    | 'OAUTH_ACCESS_TOKEN_TTL_SECONDS'
    | 'OAUTH_REFRESH_TOKEN_TTL_SECONDS'
    | 'OAUTH_CLIENT_DOCUMENT_TTL_SECONDS'
  >,
  deps: { store: Store; client: SafeClient; clock: Clock },
) {
  const issuer = config.PUBLIC_BASE_URL;
  const resource = `${issuer}/mcp`;
  const clients = createClients({ ...deps, documentTtlMs: config.OAUTH_CLIENT_DOCUMENT_TTL_SECONDS * 1000 });
  const grants = createGrants({
    store: deps.store,
    clock: deps.clock,
    resource,
    accessTtlMs: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS * 1000,
    refreshTtlMs: config.OAUTH_REFRESH_TOKEN_TTL_SECONDS * 1000,
  });

  const provider: OAuthServerProvider = {
    clientsStore: clients,
    async authorize(client, params, res) {
      const id = await grants.request({
        clientId: client.client_id,
        clientName: client.client_name ?? client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: params.scopes ?? [],
        resource: params.resource,
        state: params.state,
      });
      res.redirect(302, `${CONSENT_PATH}?request=${encodeURIComponent(id)}`);
    },
    challengeForAuthorizationCode: (client, code) => grants.challenge(client.client_id, code),
    exchangeAuthorizationCode: (client, code, _verifier, redirectUri, asked) =>
      grants.exchangeCode(client.client_id, code, redirectUri, asked),
    exchangeRefreshToken: (client, token, scopes, asked) => grants.refresh(client.client_id, token, asked, scopes),
    async verifyAccessToken(token) {
      const holder = await grants.verifyAccessToken(token);
      if (!holder) throw new InvalidTokenError('the access token is unknown, expired or revoked');
      return { token, clientId: holder.clientId, scopes: holder.scopes, resource: new URL(resource) };
    },
    revokeToken: (client, request) => grants.revokeToken(client.client_id, request.token),
  };

  return {
    provider,
    grants,
    resource,
    /** RFC 9728: what this resource is and who issues its tokens. */
    protectedResource: () => ({
      resource,
      authorization_servers: [issuer],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Fetchdown MCP',
    }),
    /** RFC 8414: the endpoints, and what they accept (PKCE S256 only; public clients; metadata documents). */
    authorizationServer: () => ({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
    }),
  };
}

export type OAuth = ReturnType<typeof createOAuth>;
