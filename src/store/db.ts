// The account store: one Kysely instance over SQLite (embedded default, a file under DATA_DIR) or Postgres
// (DATABASE_URL=postgres://…), versioned migrations run at start-up, and a write transaction that serialises writers.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { listMigrations } from './migrations/index.js';
import { translateOutages } from './outages.js';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Applies every pending migration; safe when several processes start at once. */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction that other writers wait for: SQLite takes the write lock up front (BEGIN
   * IMMEDIATE), Postgres relies on the row locks `work` takes (see lockRow). Use only the handle passed in.
   */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Prepared statements kept per SQLite file (by SQL text); the queries we run are a small fixed set. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * The SQLite file as Kysely's driver sees it, with statements kept once prepared: the driver prepares every query it
 * runs, and for the ledger's batch insert (6,000 parameters) preparing cost more than running. Kysely holds the one
 * connection for a whole query (its streams included), so a kept statement is never used twice at once.
 */
function keepStatements(file: SqliteDatabase.Database): {
  close(): void;
  prepare(sql: string): SqliteDatabase.Statement;
} {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => file.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = file.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * bigint and numeric (what sum() returns) as JS numbers: our values are millicredits and milliseconds, far below 2^53.
 */
const pgTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : (pg.types.getTypeParser(oid, format) as (value: string) => unknown),
};

/** How long a request waits for a Postgres connection before it fails (503 store_unavailable) rather than hangs. */
const CONNECT_TIMEOUT_MS = 5000;

const MIGRATE_ATTEMPTS = 30;

/**
 * Kysely looks for its migration table by listing the tables of every schema, and Postgres fails that listing when
 * another schema is dropped while it runs (3F000 naming that schema; 42P01 for a table): someone else's drop (another
 * tenant, a parallel test run), not ours, so the migration is simply tried again, after a pause that grows. Measured:
 * 18 of 555 listings failed while another connection created and dropped schemas in a loop; on a loaded machine,
 * where a listing takes longer, five attempts in a row could all fail.
 */
function droppedMeanwhile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '3F000' || code === '42P01';
}

/** onError: told about a pooled connection that died (a restart, a failover); the pool replaces it by itself. */
export function createStore(options: {
  databaseUrl?: string;
  dataDir: string;
  onError?: (error: Error) => void;
}): Store {
  const postgres = options.databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(options.databaseUrl);
  const dialect: Dialect = postgres ? 'postgres' : 'sqlite';
  let db: Kysely<Database>;
  if (postgres) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      types: pgTypes,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // A connection cut by the server (a restart, a failover) emits 'error' on its client, and on the pool too while it
    // is idle; unhandled, either event ends the process. A client checked out between two queries of a transaction has
    // no listener of the pool's, so each gets its own: the query in progress fails (503 store_unavailable) and the pool
    // replaces the client.
    pool.on('connect', (client) => client.on('error', (error) => options.onError?.(error)));
    pool.on('error', () => undefined); // already reported by the client's own listener
    db = new Kysely<Database>({ dialect: translateOutages(new PostgresDialect({ pool })) });
  } else {
    mkdirSync(options.dataDir, { recursive: true });
    const file = new SqliteDatabase(join(options.dataDir, 'accounts.sqlite'));
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: keepStatements(file) }) });
  }

  async function transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    if (dialect === 'postgres') return db.transaction().execute(work);
    return db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await work(conn);
        await sql`commit`.execute(conn);
        return result;
      } catch (error) {
        await sql`rollback`.execute(conn);
        throw error;
      }
    });
  }

  return {
    db,
    dialect,
    async migrate() {
      // Kysely looks for its migration tables in every schema unless told which: name the connection's own, so
      // several schemas in one database (tenants, parallel test runs) each keep their own migration state.
      const migrationTableSchema =
        dialect === 'postgres'
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
          : undefined;
      const migrator = new Migrator({
        db,
        migrationTableSchema,
        provider: { getMigrations: async () => listMigrations(dialect) },
      });
      for (let attempt = 1; ; attempt++) {
        const { error } = await migrator.migrateToLatest();
        if (!error) return;
        if (attempt < MIGRATE_ATTEMPTS && droppedMeanwhile(error)) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(attempt * 20, 200)));
          continue;
        }
        throw error instanceof Error ? error : new Error(`database migration failed: ${JSON.stringify(error)}`);
      }
    },
    transaction,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
