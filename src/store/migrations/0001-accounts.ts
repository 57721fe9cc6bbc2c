// Migration 0001: accounts, API keys, magic links, sessions and the usage ledger.
import type { CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export function up(dialect: Dialect) {
  // Migrations see the schema as it was, not as types.ts says it is now: unknown tables, by design.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await withId(db.schema.createTable('accounts'), dialect)
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
      .addColumn('balance_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('allowance_period', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('allowance_used_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('api_keys'), dialect)
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('label', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

    await withId(db.schema.createTable('magic_links'), dialect)
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();

    await withId(db.schema.createTable('sessions'), dialect)
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();

    await withId(db.schema.createTable('ledger'), dialect)
      .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
      .addColumn('key_id', 'integer')
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('fetcher', 'text')
      .addColumn('credits_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('balance_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cache_hit', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('url_host', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ledger_account_at').on('ledger').columns(['account_id', 'at']).execute();
    await db.schema.createIndex('ledger_at').on('ledger').column('at').execute();
  };
}
