// Embedded persistent cache: one SQLite file in WAL mode. Expired rows are never returned and are purged a batch at
// a time in the background, so the file does not grow without bound.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../util/clock.js';
import type { Cache, CacheHit } from './types.js';

const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 500; // bounded work per tick: a purge never stalls requests for long

interface Row {
  value: string;
  stored_at: number;
  expires_at: number;
}

export function createSqliteCache(options: { path: string; clock?: Clock }): Cache {
  const clock = options.clock ?? systemClock;
  mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  // with WAL: durable across crashes of the process, not of the machine; fine for a cache
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS cache (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    stored_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  )`);
  db.exec('CREATE INDEX IF NOT EXISTS cache_expires_at ON cache (expires_at)');

  const select = db.prepare<[string, number], Row>(
    'SELECT value, stored_at, expires_at FROM cache WHERE key = ? AND expires_at > ?',
  );
  const upsert = db.prepare<[string, string, number, number]>(
    `INSERT INTO cache (key, value, stored_at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, stored_at = excluded.stored_at, expires_at = excluded.expires_at`,
  );
  const remove = db.prepare<[string], Pick<Row, 'expires_at'>>('DELETE FROM cache WHERE key = ? RETURNING expires_at');
  const purge = db.prepare<[number, number]>(
    'DELETE FROM cache WHERE rowid IN (SELECT rowid FROM cache WHERE expires_at <= ? LIMIT ?)',
  );

  const purgeExpired = () => purge.run(clock.now(), PURGE_BATCH);
  purgeExpired(); // a restart is a good moment, as what expired while the process was down is still there
  const timer = setInterval(() => {
    try {
      purgeExpired();
    } catch {
      // e.g. SQLITE_BUSY while another process writes: the next tick tries again, and readers never see expired rows
    }
  }, PURGE_EVERY_MS);
  timer.unref(); // the cache must not keep the process alive

  return {
    async get<T>(key: string) {
      const row = select.get(key, clock.now());
      if (!row) return null;
      return { value: JSON.parse(row.value) as T, storedAt: row.stored_at, expiresAt: row.expires_at };
    },
    async set<T>(key: string, value: T, ttlSeconds: number) {
      const storedAt = clock.now();
      const hit: CacheHit<T> = { value, storedAt, expiresAt: storedAt + Math.round(ttlSeconds * 1000) };
      upsert.run(key, JSON.stringify(value), hit.storedAt, hit.expiresAt);
      return hit;
    },
    async delete(key: string) {
      const row = remove.get(key);
      return row !== undefined && row.expires_at > clock.now(); // an expired row was already gone for readers
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      clearInterval(timer);
      db.close();
    },
  };
}
