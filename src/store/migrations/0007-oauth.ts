// Migration 0007: OAuth for the remote MCP endpoint. Clients (registered, or read from their metadata document), the
// authorizations a user is asked for (a pending request, then its one-time code), the grants a user consented to
// (the connected applications) and their tokens, stored as SHA-256 only. Ledger rows and crawls name the client
// that spent or started them.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';
import { withId } from './0001-accounts.js';

export function up(dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('from_document', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('refreshed_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('oauth_authorizations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('cascade'))
      .addColumn('grant_id', 'integer')
      .addColumn('code_hash', 'text', (c) => c.unique())
      .addColumn('code_used_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('oauth_authorizations_expiry')
      .on('oauth_authorizations')
      .column('expires_at')
      .execute();

    await withId(db.schema.createTable('oauth_grants'), dialect)
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('oauth_grants_account').on('oauth_grants').column('account_id').execute();

    await db.schema
      .createTable('oauth_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'integer', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .execute();
    await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();

    await db.schema.alterTable('ledger').addColumn('client_id', 'text').execute();
    await db.schema.alterTable('crawls').addColumn('client_id', 'text').execute();
  };
}
