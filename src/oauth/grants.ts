// What a user lets an OAuth client do: an authorization request waits for consent, consent gives it a one-time code
// (and a grant: the connected application), and the code is spent once for the connection's first tokens
// (tokens.ts). Codes are stored as SHA-256 only, like API keys.
import { InvalidGrantError, InvalidScopeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Selectable } from 'kysely';
import { generateSecret, hashSecret } from '../accounts/secrets.js';
import type { Store } from '../store/db.js';
import type { OAuthGrantsTable } from '../store/types.js';
import type { Clock } from '../util/clock.js';
import { checkResourceOf, createTokens } from './tokens.js';

/** What a token may be used for: the MCP tools that read pages and sites, and web search. */
export const SCOPES = ['fetch', 'search'] as const;
/** Each scope in a few words, as people read it: the OpenAPI description, the dashboard's connected applications. */
export const SCOPE_SUMMARIES: Readonly<Record<string, string>> = {
  fetch: 'read pages and sites',
  search: 'search the web',
} satisfies Record<(typeof SCOPES)[number], string>;

/** How long a user has to consent, and then the client to spend its code. */
const REQUEST_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;

export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource?: URL;
  state?: string;
}

export interface ConnectedApp {
  id: number;
  client_id: string;
  client_name: string;
  scopes: string[];
  connected_at: string;
  last_used_at: string | null;
}

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

const appOf = (r: Selectable<OAuthGrantsTable>): ConnectedApp => ({
  id: r.id,
  client_id: r.client_id,
  client_name: r.client_name,
  scopes: r.scopes.split(' '),
  connected_at: iso(r.created_at)!,
  last_used_at: iso(r.last_used_at),
});

/** The redirect back to the client: the code (or error) and the client's state. */
function redirectTo(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.href;
}

export function createGrants(deps: {
  store: Store;
  clock: Clock;
  /** The one resource tokens are for (RFC 8707): this server's MCP endpoint. */
  resource: string;
  accessTtlMs: number;
  refreshTtlMs: number;
}) {
  const { store, clock, resource } = deps;
  const tokens = createTokens(deps);
  const checkResource = (asked: URL | string | undefined) => checkResourceOf(resource, asked);

  function checkScopes(requested: string[]): string[] {
    const unknown = requested.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0)
      throw new InvalidScopeError(`unknown scope ${unknown.join(' ')}; scopes: ${SCOPES.join(' ')}`);
    return requested.length === 0 ? [...SCOPES] : [...new Set(requested)];
  }

  return {
    /** Records a request for consent; its id is the consent page's (unguessable, it names the request). */
    async request(asked: AuthorizationRequest): Promise<string> {
      checkResource(asked.resource);
      const scopes = checkScopes(asked.scopes);
      const id = generateSecret();
      // Requests and codes past their time go as new ones come, so the table holds only the last minutes' worth.
      await store.db.deleteFrom('oauth_authorizations').where('expires_at', '<=', clock.now()).execute();
      await store.db
        .insertInto('oauth_authorizations')
        .values({
          id,
          client_id: asked.clientId,
          redirect_uri: asked.redirectUri,
          code_challenge: asked.codeChallenge,
          scopes: scopes.join(' '),
          resource,
          state: asked.state ?? null,
          expires_at: clock.now() + REQUEST_TTL_MS,
          account_id: null,
          grant_id: null,
          code_hash: null,
          code_used_at: null,
        })
        .execute();
      return id;
    },

    /** A request still waiting for consent, as the consent page shows it; null once decided or expired. */
    async pending(id: string) {
      const row = await store.db
        .selectFrom('oauth_authorizations')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', 'is', null)
        .where('expires_at', '>', clock.now())
        .executeTakeFirst();
      return row ? { clientId: row.client_id, redirectUri: row.redirect_uri, scopes: row.scopes.split(' ') } : null;
    },

    /**
     * The user said yes: the client's connected application on this account (the one it has, or a new one) and a
     * code for it. Returns where the browser goes next, or null when the request was decided or expired meanwhile.
     */
    async approve(id: string, accountId: number, clientName: string): Promise<string | null> {
      return store.transaction(async (trx) => {
        const now = clock.now();
        const row = await trx
          .selectFrom('oauth_authorizations')
          .selectAll()
          .where('id', '=', id)
          .where('account_id', 'is', null)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        if (!row) return null;
        const existing = await trx
          .selectFrom('oauth_grants')
          .select('id')
          .where('account_id', '=', accountId)
          .where('client_id', '=', row.client_id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const grantId = existing
          ? (
              await trx
                .updateTable('oauth_grants')
                .set({ scopes: row.scopes, client_name: clientName })
                .where('id', '=', existing.id)
                .returning('id')
                .executeTakeFirstOrThrow()
            ).id
          : (
              await trx
                .insertInto('oauth_grants')
                .values({
                  account_id: accountId,
                  client_id: row.client_id,
                  client_name: clientName,
                  scopes: row.scopes,
                  resource: row.resource,
                  created_at: now,
                  last_used_at: null,
                  revoked_at: null,
                })
                .returning('id')
                .executeTakeFirstOrThrow()
            ).id;
        const code = generateSecret();
        await trx
          .updateTable('oauth_authorizations')
          .set({ account_id: accountId, grant_id: grantId, code_hash: hashSecret(code), expires_at: now + CODE_TTL_MS })
          .where('id', '=', id)
          .execute();
        return redirectTo(row.redirect_uri, { code, state: row.state });
      });
    },

    /** The user said no: the request is gone, and the client hears access_denied. */
    async deny(id: string): Promise<string | null> {
      const row = await store.db
        .deleteFrom('oauth_authorizations')
        .where('id', '=', id)
        .where('account_id', 'is', null)
        .returning(['redirect_uri', 'state'])
        .executeTakeFirst();
      if (!row) return null;
      return redirectTo(row.redirect_uri, {
        error: 'access_denied',
        error_description: 'the user did not allow access',
        state: row.state,
      });
    },

    /** The PKCE challenge of a code the client holds (the SDK's token handler checks the verifier against it). */
    async challenge(clientId: string, code: string): Promise<string> {
      const row = await store.db
        .selectFrom('oauth_authorizations')
        .select(['client_id', 'code_challenge'])
        .where('code_hash', '=', hashSecret(code))
        .executeTakeFirst();
      if (!row || row.client_id !== clientId) throw new InvalidGrantError('unknown authorization code');
      return row.code_challenge;
    },

    /**
     * Spends a code once. A code presented twice is stolen or replayed: its grant is revoked, as OAuth 2.1 asks, so
     * the tokens the first use got stop working too.
     */
    async exchangeCode(clientId: string, code: string, redirectUri?: string, asked?: URL): Promise<OAuthTokens> {
      checkResource(asked);
      const now = clock.now();
      const hash = hashSecret(code);
      const row = await store.db
        .selectFrom('oauth_authorizations')
        .selectAll()
        .where('code_hash', '=', hash)
        .executeTakeFirst();
      if (!row || row.client_id !== clientId || row.grant_id === null)
        throw new InvalidGrantError('unknown authorization code');
      if (row.expires_at <= now) throw new InvalidGrantError('authorization code expired');
      if (redirectUri !== undefined && redirectUri !== row.redirect_uri)
        throw new InvalidGrantError('redirect_uri differs from the authorization request');
      const spent = await store.db
        .updateTable('oauth_authorizations')
        .set({ code_used_at: now })
        .where('id', '=', row.id)
        .where('code_used_at', 'is', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) === 0) {
        await tokens.revokeGrant(store.db, row.grant_id);
        throw new InvalidGrantError('authorization code already used; the tokens it gave are revoked');
      }
      return tokens.issue(store.db, row.grant_id, row.scopes);
    },

    refresh: tokens.refresh,
    revokeToken: tokens.revoke,
    verifyAccessToken: tokens.verify,

    /** The account's connected applications (grants in force), newest first. */
    async list(accountId: number): Promise<ConnectedApp[]> {
      const rows = await store.db
        .selectFrom('oauth_grants')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .orderBy('id', 'desc')
        .execute();
      return rows.map(appOf);
    },

    /** Disconnects one of the account's applications: what it was, or null when no such connection is in force. */
    async disconnect(accountId: number, grantId: number): Promise<ConnectedApp | null> {
      const row = await store.db
        .updateTable('oauth_grants')
        .set({ revoked_at: clock.now() })
        .where('id', '=', grantId)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? appOf(row) : null;
    },
  };
}

export type Grants = ReturnType<typeof createGrants>;
