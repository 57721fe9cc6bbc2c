// A paying account for the benchmarks that send a key: signed up through the API, moved to the scale plan in its
// database (as billing would), with the env that makes that plan's rate limit and credits too high to refuse.
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { newAccount, type Queryable } from '../test/topology/topology.js';

/** The scale plan's limits, counted as usual but never reached in a run. */
export const PAYING_ENV = {
  RATE_LIMIT_SCALE: String(2 ** 40),
  SCALE_MONTHLY_CREDITS: String(10 ** 9),
};

/** newAccount's queries ($1, $2… as pg writes them) on the embedded default's SQLite file. */
export function sqliteQueryable(file: string): Queryable & { close(): void } {
  const db = new SqliteDatabase(file);
  db.pragma('busy_timeout = 5000');
  return {
    query: async <R extends object>(text: string, values: unknown[]) => {
      const statement = db.prepare(text.replace(/\$(\d+)/g, '@p$1'));
      const params = Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));
      return { rows: statement.reader ? (statement.all(params) as R[]) : (statement.run(params), []) };
    },
    close: () => db.close(),
  };
}

/** A new scale-plan account's API key, on the server at `base` (store: Postgres at `databaseUrl`, else SQLite). */
export async function payingKey(base: string, dataDir: string, databaseUrl?: string): Promise<string> {
  if (!databaseUrl) {
    const sqlite = sqliteQueryable(join(dataDir, 'accounts.sqlite'));
    try {
      return (await newAccount({ lb: base, db: sqlite }, 'scale')).apiKey;
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await newAccount({ lb: base, db: client }, 'scale')).apiKey;
  } finally {
    await client.end();
  }
}
