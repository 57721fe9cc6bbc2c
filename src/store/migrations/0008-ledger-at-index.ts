// Migration 0008: the ledger loses its index on `at` alone. Since the usage totals (0005), nothing reads the ledger by
// time without an account: the latency sample walks the newest ids and stops at its bound, the same plan with the
// index or without (SQLite's EXPLAIN, 1,000,000 rows). Every row written paid for it: 2.76 against 2.32 µs an
// insert on SQLite (docs/benchmarks-log.md, "The keyed path, a session on").
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function up(_dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema.dropIndex('ledger_at').ifExists().execute();
  };
}
