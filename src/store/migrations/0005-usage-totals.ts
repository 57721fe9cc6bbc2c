// Migration 0005: usage totals per account and hour, kept by the database as ledger rows are inserted, so the usage
// page and the operators' metrics read a few hundred rows a month whatever the account's volume. A trigger keeps
// them in the inserting transaction: a ledger row is counted exactly when it is written, by any path (a batch, a
// replayed journal, a reclaim), and a row skipped as already written is not counted twice.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.js';

/** account_id of the rows that count every caller, and of those that count callers without an account. */
export const EVERYONE = -1;
export const ANONYMOUS = 0;

const KEY = 'account_id, hour, operation, fetcher, status, cache_hit';
const METERED = "operation not in ('credit_pack', 'credit_grant', 'plan_change')";

export function up(dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('usage_totals')
      .addColumn('account_id', 'integer', (c) => c.notNull())
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('fetcher', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('cache_hit', 'integer', (c) => c.notNull())
      .addColumn('requests', 'bigint', (c) => c.notNull())
      .addColumn('credits_millis', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_totals_key', [
        'account_id',
        'hour',
        'operation',
        'fetcher',
        'status',
        'cache_hit',
      ])
      .execute();
    // Every row counts for its account (or the anonymous callers) and for everyone.
    const grouped = (rows: string) => `
      select who.id, at / 3600000, operation, coalesce(fetcher, ''), status, cache_hit, count(*), sum(credits_millis)
      from ${rows} as r cross join (select ${EVERYONE} as id union all select ${ANONYMOUS}) as who
      where ${METERED} and (who.id = ${EVERYONE} or who.id = ${ANONYMOUS} and r.account_id is null)
      group by who.id, at / 3600000, operation, coalesce(fetcher, ''), status, cache_hit
      union all
      select account_id, at / 3600000, operation, coalesce(fetcher, ''), status, cache_hit, count(*), sum(credits_millis)
      from ${rows} as r
      where ${METERED} and account_id is not null
      group by account_id, at / 3600000, operation, coalesce(fetcher, ''), status, cache_hit`;
    await sql
      .raw(
        `insert into usage_totals (${KEY}, requests, credits_millis) ` +
          `select * from (${grouped('ledger')}) as totals`,
      )
      .execute(db);
    if (dialect === 'postgres') {
      // One statement-level trigger per insert: a batch of rows is one grouped upsert, in key order (no deadlock
      // between two processes' batches).
      await sql
        .raw(
          `create function ledger_usage_totals() returns trigger language plpgsql set search_path from current as $$
          begin
            insert into usage_totals (${KEY}, requests, credits_millis)
            select * from (${grouped('new_rows')}) as totals(${KEY}, requests, credits_millis)
            order by ${KEY}
            on conflict (${KEY}) do update set requests = usage_totals.requests + excluded.requests,
              credits_millis = usage_totals.credits_millis + excluded.credits_millis;
            return null;
          end $$`,
        )
        .execute(db);
      await sql
        .raw(
          'create trigger ledger_usage_totals after insert on ledger referencing new table as new_rows ' +
            'for each statement execute function ledger_usage_totals()',
        )
        .execute(db);
      return;
    }
    // SQLite triggers are per row: two upserts in the inserting transaction, in-process and cheap.
    const upsert = (who: string) => `
      insert into usage_totals (${KEY}, requests, credits_millis)
      values (${who}, new.at / 3600000, new.operation, coalesce(new.fetcher, ''), new.status, new.cache_hit, 1,
        new.credits_millis)
      on conflict (${KEY}) do update set requests = requests + 1,
        credits_millis = credits_millis + excluded.credits_millis;`;
    await sql
      .raw(
        `create trigger ledger_usage_totals after insert on ledger when new.${METERED} begin
          ${upsert(`coalesce(new.account_id, ${ANONYMOUS})`)}
          ${upsert(String(EVERYONE))}
        end`,
      )
      .execute(db);
  };
}
