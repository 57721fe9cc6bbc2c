// A connection's tokens: an access token and a refresh token issued together, each stored as SHA-256; a refresh token
// is spent once for a new pair, and one presented again (stolen, or replayed) revokes the whole connection.
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Kysely } from 'kysely';
import { generateSecret, hashSecret } from '../accounts/secrets.js';
import type { Store } from '../store/db.js';
import type { Account, Database } from '../store/types.js';
import type { Clock } from '../util/clock.js';

export const ACCESS_TOKEN_PREFIX = 'fd_oat_';
const REFRESH_TOKEN_PREFIX = 'fd_ort_';
/** How long a spent refresh token is kept, so that presenting it again is recognised (and revokes the connection). */
const SPENT_KEPT_MS = 60 * 60_000;
/** A grant's last use is written at most this often (every call would write a row). */
const LAST_USED_STEP_MS = 60_000;

export interface TokenHolder {
  account: Account;
  grantId: number;
  clientId: string;
  scopes: string[];
}

/** Tokens are for one resource (RFC 8707): asking for another is invalid_target. */
export function checkResourceOf(resource: string, asked: URL | string | undefined): void {
  if (asked !== undefined && new URL(asked).href !== resource)
    throw new InvalidTargetError(`tokens here are for ${resource} only, not ${String(asked)}`);
}

export function createTokens(deps: {
  store: Store;
  clock: Clock;
  resource: string;
  accessTtlMs: number;
  refreshTtlMs: number;
}) {
  const { store, clock, resource, accessTtlMs, refreshTtlMs } = deps;

  async function issue(db: Kysely<Database>, grantId: number, scopes: string): Promise<OAuthTokens> {
    const now = clock.now();
    // A connection keeps its live tokens only: the expired ones, and refresh tokens spent an hour ago (long enough to
    // recognise one presented again), go as new ones are issued.
    await db
      .deleteFrom('oauth_tokens')
      .where('grant_id', '=', grantId)
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('rotated_at', '<=', now - SPENT_KEPT_MS)]))
      .execute();
    const access = generateSecret(ACCESS_TOKEN_PREFIX);
    const refresh = generateSecret(REFRESH_TOKEN_PREFIX);
    await db
      .insertInto('oauth_tokens')
      .values([
        {
          token_hash: hashSecret(access),
          grant_id: grantId,
          kind: 'access',
          expires_at: now + accessTtlMs,
          rotated_at: null,
        },
        {
          token_hash: hashSecret(refresh),
          grant_id: grantId,
          kind: 'refresh',
          expires_at: now + refreshTtlMs,
          rotated_at: null,
        },
      ])
      .execute();
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.round(accessTtlMs / 1000),
      refresh_token: refresh,
      scope: scopes,
    };
  }

  async function revokeGrant(db: Kysely<Database>, grantId: number): Promise<void> {
    await db
      .updateTable('oauth_grants')
      .set({ revoked_at: clock.now() })
      .where('id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** The grant a token belongs to, if it is the client's and still in force. */
  async function liveGrant(grantId: number, clientId: string) {
    const grant = await store.db.selectFrom('oauth_grants').selectAll().where('id', '=', grantId).executeTakeFirst();
    if (!grant || grant.client_id !== clientId) throw new InvalidGrantError('this token was not issued to this client');
    if (grant.revoked_at !== null) throw new InvalidGrantError('this connection has been revoked; sign in again');
    return grant;
  }

  return {
    issue,
    revokeGrant,

    /** Rotates a refresh token: it is spent, a new pair is issued. A spent one presented again revokes the grant. */
    async refresh(clientId: string, token: string, asked?: URL, scopes?: string[]): Promise<OAuthTokens> {
      checkResourceOf(resource, asked);
      const now = clock.now();
      const hash = hashSecret(token);
      const row = await store.db
        .selectFrom('oauth_tokens')
        .selectAll()
        .where('token_hash', '=', hash)
        .where('kind', '=', 'refresh')
        .executeTakeFirst();
      if (!row) throw new InvalidGrantError('unknown refresh token');
      const grant = await liveGrant(row.grant_id, clientId);
      if (row.expires_at <= now) throw new InvalidGrantError('refresh token expired; sign in again');
      if (scopes && scopes.some((s) => !grant.scopes.split(' ').includes(s)))
        throw new InvalidScopeError('a refresh cannot add scopes the user did not grant');
      const spent = await store.db
        .updateTable('oauth_tokens')
        .set({ rotated_at: now })
        .where('token_hash', '=', hash)
        .where('rotated_at', 'is', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) === 0) {
        await revokeGrant(store.db, grant.id);
        throw new InvalidGrantError('refresh token already used; the connection is revoked, sign in again');
      }
      return issue(store.db, grant.id, grant.scopes);
    },

    /** RFC 7009: the client's own token ends its whole connection; an unknown token is not an error. */
    async revoke(clientId: string, token: string): Promise<void> {
      const row = await store.db
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .select(['oauth_grants.id as grant_id', 'oauth_grants.client_id'])
        .where('oauth_tokens.token_hash', '=', hashSecret(token))
        .executeTakeFirst();
      if (row && row.client_id === clientId) await revokeGrant(store.db, row.grant_id);
    },

    /** Who an access token acts for, or null (unknown, expired, revoked: the caller answers 401 either way). */
    async verify(token: string): Promise<TokenHolder | null> {
      if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
      const now = clock.now();
      const row = await store.db
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .innerJoin('accounts', 'accounts.id', 'oauth_grants.account_id')
        .selectAll('accounts')
        .select([
          'oauth_tokens.expires_at as token_expires_at',
          'oauth_grants.id as grant_id',
          'oauth_grants.client_id',
          'oauth_grants.scopes',
          'oauth_grants.resource',
          'oauth_grants.last_used_at',
        ])
        .where('oauth_tokens.token_hash', '=', hashSecret(token))
        .where('oauth_tokens.kind', '=', 'access')
        .where('oauth_grants.revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row || row.token_expires_at <= now || row.resource !== resource) return null;
      const {
        token_expires_at: _expires,
        grant_id,
        client_id,
        scopes,
        resource: _resource,
        last_used_at,
        ...account
      } = row;
      if (last_used_at === null || now - last_used_at >= LAST_USED_STEP_MS)
        await store.db.updateTable('oauth_grants').set({ last_used_at: now }).where('id', '=', grant_id).execute();
      return { account, grantId: grant_id, clientId: client_id, scopes: scopes.split(' ') };
    },
  };
}
