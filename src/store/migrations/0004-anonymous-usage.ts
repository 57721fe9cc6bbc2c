// Migration 0004: the anonymous tier's monthly allowance, counted per client address (as a hash: no address is kept)
// and month, so that it holds across restarts and processes.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function up(_dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('anonymous_usage')
      .addColumn('client_hash', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('anonymous_usage_key', ['client_hash', 'period'])
      .execute();
  };
}
