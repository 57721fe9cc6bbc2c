// What the surfaces do with OAuth: serve the SDK's handlers their provider and the metadata, ask the signed-in user
// for consent, check a bearer token on POST /mcp, and list and disconnect the account's connected applications.
import type { OAuth } from '../oauth/index.js';
import { AppError } from '../errors.js';
import type { Account } from '../store/types.js';

export {
  ACCESS_TOKEN_PREFIX,
  CONSENT_PATH,
  SCOPE_SUMMARIES,
  SCOPES,
  type ConnectedApp,
  type TokenHolder,
} from '../oauth/index.js';

/** The client_id when it is a metadata document's URL (the client is who serves it), else null. */
export const metadataUrlOf = (clientId: string) => (/^https?:\/\//.test(clientId) ? clientId : null);

/** What the consent page shows of a request: who asks, where the answer goes, for what. */
export interface ConsentRequest {
  clientName: string;
  /** Its metadata document's URL, or null (metadataUrlOf). */
  clientUrl: string | null;
  redirectHost: string;
  scopes: string[];
}

export function createOAuthOperations(oauth: OAuth) {
  const { grants } = oauth;

  async function clientOf(clientId: string) {
    const client = await oauth.provider.clientsStore.getClient(clientId);
    if (!client) throw new AppError('not_found', 'the application that asked is no longer registered');
    return client;
  }

  return {
    provider: oauth.provider,
    protectedResource: oauth.protectedResource,
    authorizationServer: oauth.authorizationServer,
    verifyAccessToken: grants.verifyAccessToken,

    /** The request waiting for consent, or null when it was decided or has expired. */
    async consentRequest(id: string): Promise<ConsentRequest | null> {
      const pending = await grants.pending(id);
      if (!pending) return null;
      const client = await clientOf(pending.clientId);
      return {
        clientName: client.client_name ?? client.client_id,
        clientUrl: metadataUrlOf(client.client_id),
        redirectHost: new URL(pending.redirectUri).host || new URL(pending.redirectUri).protocol,
        scopes: pending.scopes,
      };
    },

    /** The user's answer: where the browser goes next (back to the client), or null when the request is gone. */
    async decide(id: string, account: Account, allow: boolean): Promise<string | null> {
      if (!allow) return grants.deny(id);
      const pending = await grants.pending(id);
      if (!pending) return null;
      const client = await clientOf(pending.clientId);
      return grants.approve(id, account.id, client.client_name ?? client.client_id);
    },

    connectedApps: (account: Account) => grants.list(account.id),
    async disconnect(account: Account, id: number) {
      const app = await grants.disconnect(account.id, id);
      if (!app) throw new AppError('not_found', `no connected application ${id} on this account`);
      return app;
    },
  };
}

export type OAuthOperations = ReturnType<typeof createOAuthOperations>;
