// The databases every account test runs on: SQLite always, Postgres when TEST_DATABASE_URL is set (required in CI).
// Each Postgres test app gets a schema of its own (search_path in the URL), dropped when the test ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface DatabaseBackend {
  name: 'sqlite' | 'postgres';
  /** The env for buildTestApp, or a reason to skip. Registers cleanup on `t`. */
  env(t: { after(fn: () => Promise<void> | void): unknown }): Promise<Record<string, string> | string>;
}

const POSTGRES_URL = process.env.TEST_DATABASE_URL;
let reachable: Promise<string | null> | undefined;

/** null when Postgres answers, else why not. */
function checkPostgres(): Promise<string | null> {
  reachable ??= (async () => {
    if (!POSTGRES_URL) return 'TEST_DATABASE_URL is not set';
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return `Postgres at ${POSTGRES_URL} is not reachable: ${String(error)}`;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return reachable;
}

/** A fresh schema; the returned URL makes it the connection's search_path. */
export async function createPostgresSchema(t: { after(fn: () => Promise<void> | void): unknown }): Promise<string> {
  const schema = `fd_test_${process.pid}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  t.after(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    // Two test files dropping their schemas at once can deadlock on the catalog: Postgres aborts one, which retries.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
      }
    }
    await client.end();
  });
  const separator = POSTGRES_URL!.includes('?') ? '&' : '?';
  return `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

export const DATABASES: DatabaseBackend[] = [
  { name: 'sqlite', env: async () => ({}) },
  {
    name: 'postgres',
    async env(t) {
      const problem = await checkPostgres();
      if (problem) {
        if (process.env.CI === 'true') throw new Error(`Postgres is required in CI: ${problem}`);
        return problem;
      }
      return { DATABASE_URL: await createPostgresSchema(t) };
    },
  },
];

export type DatabaseTestContext = Parameters<DatabaseBackend['env']>[0] & { skip(message?: string): void };

/** The backend's env for buildTestApp; when the backend is not there, `t` is skipped and null returned. */
export async function databaseEnv(
  t: DatabaseTestContext,
  backend: DatabaseBackend,
): Promise<Record<string, string> | null> {
  const env = await backend.env(t);
  if (typeof env !== 'string') return env;
  t.skip(env);
  return null;
}
