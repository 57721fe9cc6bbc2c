// OAuth clients. Registered here (RFC 7591) always as public clients: PKCE proves the caller, and no client secret
// exists to be kept or leaked (RFC 7591 lets a server replace the requested authentication method; the answer says
// "none"). Or named by the URL of their Client ID Metadata Document, read through the SSRF guard and kept for
// OAUTH_CLIENT_DOCUMENT_TTL_SECONDS.
import { InvalidClientError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock } from '../util/clock.js';
import type { SafeClient } from '../net/safe-client.js';
import type { Store } from '../store/db.js';

/** A metadata document's size limit: the draft asks servers to cap it, and 5 KiB is what it suggests. */
const DOCUMENT_MAX_BYTES = 5 * 1024;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A registered client no user has connected this long after it registered is deleted: registration is open to anyone,
 * and a client connects within minutes of registering (it registers when its user adds the server).
 */
export const UNUSED_CLIENT_MS = 30 * 86_400_000;

/** https, or http on a loopback host (a developer's machine: the SSRF guard refuses it in production). */
const secureOrLoopback = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));

/** A redirect URI a client may register: not plain http to another machine, where the code could be read in transit. */
function checkRedirectUris(uris: string[]): void {
  if (uris.length === 0) throw new InvalidClientMetadataError('redirect_uris must name at least one URI');
  for (const uri of uris) {
    const url = new URL(uri);
    if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
      throw new InvalidClientMetadataError(`redirect URI ${uri}: http is allowed for loopback addresses only`);
    if (url.hash) throw new InvalidClientMetadataError(`redirect URI ${uri} may not have a fragment`);
  }
}

/** Whether a client_id is a metadata document's URL (draft-ietf-oauth-client-id-metadata-document): https, a path. */
export function isDocumentUrl(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return secureOrLoopback(url) && url.pathname !== '/' && !url.hash && !url.username && !url.password;
}

export function createClients(deps: { store: Store; client: SafeClient; clock: Clock; documentTtlMs: number }) {
  const { store, client, clock, documentTtlMs } = deps;

  async function save(info: OAuthClientInformationFull, fromDocument: boolean): Promise<void> {
    const now = clock.now();
    const metadata = JSON.stringify(info);
    await store.db
      .insertInto('oauth_clients')
      .values({
        client_id: info.client_id,
        metadata,
        from_document: fromDocument ? 1 : 0,
        created_at: now,
        refreshed_at: now,
      })
      .onConflict((c) => c.column('client_id').doUpdateSet({ metadata, refreshed_at: now }))
      .execute();
  }

  /** The client's metadata document, checked; any failure is the client's (invalid_client), never ours. */
  async function readDocument(clientId: string): Promise<OAuthClientInformationFull> {
    const refuse = (why: string) => new InvalidClientError(`the client metadata document ${clientId} ${why}`);
    const outcome = await client.request(new URL(clientId), {
      headers: { accept: 'application/json' },
      maxBytes: DOCUMENT_MAX_BYTES,
    });
    if (!outcome.ok) throw refuse(`could not be read: ${outcome.failure.detail}`);
    const { response } = outcome;
    if (response.status !== 200) throw refuse(`answered HTTP ${response.status}`);
    if (response.url.href !== clientId) throw refuse('redirected elsewhere; it must be served at its own URL');
    if (response.bodyTruncated) throw refuse(`is larger than ${DOCUMENT_MAX_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw refuse('is not JSON');
    }
    const parsed = OAuthClientMetadataSchema.safeParse(body);
    if (!parsed.success) throw refuse(`is not client metadata: ${parsed.error.message}`);
    if ((body as { client_id?: unknown }).client_id !== clientId) throw refuse('names another client_id');
    const method = parsed.data.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') throw refuse(`asks for ${method}; only public clients (PKCE, "none") are served`);
    try {
      checkRedirectUris(parsed.data.redirect_uris);
    } catch (error) {
      throw refuse((error as Error).message);
    }
    return { ...parsed.data, client_id: clientId, token_endpoint_auth_method: 'none' };
  }

  const clientsStore: OAuthRegisteredClientsStore = {
    async getClient(clientId) {
      const row = await store.db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      if (row && (!row.from_document || clock.now() - row.refreshed_at < documentTtlMs))
        return JSON.parse(row.metadata) as OAuthClientInformationFull;
      if (!isDocumentUrl(clientId)) return undefined;
      const info = await readDocument(clientId);
      await save(info, true);
      return info;
    },

    async registerClient(requested) {
      checkRedirectUris(requested.redirect_uris);
      const { client_secret: _secret, client_secret_expires_at: _expiry, ...metadata } = requested;
      const info = { ...metadata, token_endpoint_auth_method: 'none' } as OAuthClientInformationFull;
      // Registered clients nobody connected go as new ones come, so the table holds the used ones and a month's others.
      await store.db
        .deleteFrom('oauth_clients')
        .where('from_document', '=', 0)
        .where('created_at', '<', clock.now() - UNUSED_CLIENT_MS)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('oauth_grants')
                .select('id')
                .whereRef('oauth_grants.client_id', '=', 'oauth_clients.client_id'),
            ),
          ),
        )
        .execute();
      await save(info, false);
      return info;
    },
  };
  return clientsStore;
}
