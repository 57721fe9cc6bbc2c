// Migration 0003: credit leases. A process spends an account's credits from a lease it took in one transaction
// (src/accounts/credits/), so a paid request takes no row lock; ledger rows carry the request id that makes writing
// one twice (a retried flush, a dead process's journal replayed) write it once.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function up(_dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('credit_leases')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('allowance_millis', 'bigint', (c) => c.notNull())
      .addColumn('balance_millis', 'bigint', (c) => c.notNull())
      .addColumn('spent_allowance_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('spent_balance_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('recalled_at', 'bigint')
      .execute();
    await db.schema.createIndex('credit_leases_account').on('credit_leases').column('account_id').execute();
    await db.schema.createIndex('credit_leases_expires').on('credit_leases').column('expires_at').execute();

    await db.schema.alterTable('ledger').addColumn('request_id', 'text').execute();
    // Unique, with any number of NULLs (rows of anonymous callers and billing): both dialects treat NULLs as distinct.
    await db.schema.createIndex('ledger_request_id').on('ledger').column('request_id').unique().execute();
  };
}
