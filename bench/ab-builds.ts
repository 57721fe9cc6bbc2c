// `npm run bench:ab -- <other checkout>`: cached POST /fetch of the benchmark's median page (bench/serving.ts's site)
// on this checkout's build against another checkout's (an older commit in a git worktree, built: its dist/main.js),
// each served by this checkout's bench/servers.ts in the shipped configuration, in a process of its own. ROUNDS
// alternations of WINDOW_MS, the order flipped every round; each round's ratio of req/s and of server CPU per request,
// min / median / max, with the load average before and after.
// `npm run bench:ab -- --production`: this checkout twice, the production set-up (CACHE_URL on Redis, DATABASE_URL on
// Postgres, from BENCH_REDIS_URL and BENCH_DATABASE_URL or the local defaults) against the embedded default.
// BENCH_KEYED=1: every request with the API key of a paying account of its server (the path a customer takes).
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { loadAverage, loadWindow, median, spread, startServerChild } from './processes.js';
import { interleave, ratios, startServingSite } from './serving.js';

const other = process.argv[2];
if (!other) throw new Error('usage: npm run bench:ab -- <path of the other checkout> | --production');
const production = other === '--production';
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 2000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Server {
  name: string;
  app: string;
  pid: number;
  /** With BENCH_KEYED: the key every request to it sends. */
  key?: string;
  stop(): void;
}

async function start(name: string, env: Record<string, string> = {}): Promise<Server> {
  const child = await startServerChild<{ app: string; pid: number; key?: string }>(
    'bench/servers.ts',
    [],
    ['app', 'pid'],
    { env },
  );
  return { name, ...child.addresses, stop: child.stop };
}

/** A schema of its own for the production run's ledger, dropped at the end. */
async function withSchema<T>(run: (url: string) => Promise<T>): Promise<T> {
  const schema = `fd_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    const separator = DATABASE_URL.includes('?') ? '&' : '?';
    return await run(`${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  } finally {
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}

await (production ? withSchema : (run: (url: string) => Promise<void>) => run(''))(async (databaseUrl) => {
  const a = production
    ? await start('production (Redis, Postgres)', { CACHE_URL: REDIS_URL, DATABASE_URL: databaseUrl })
    : await start('this checkout');
  const b = production
    ? await start('embedded default')
    : await start(`other checkout (${other})`, { BENCH_API_ROOT: resolve(other) });
  const site = await startServingSite();
  const body = JSON.stringify({ url: `${site.origin}/answer` });
  const window = (server: Server, ms = WINDOW_MS) =>
    loadWindow(server.app, server.pid, body, ms, { headers: server.key ? { 'x-service-key': server.key } : {} });
  try {
    const before = loadAverage();
    for (const server of [a, b]) await window(server, WINDOW_MS / 2); // the first fetch, then JIT warm-up
    const runs = await interleave(
      () => window(a),
      () => window(b),
    );
    const describe = (s: Server, ws: { rate: number; cpu: number }[]) =>
      `${s.name}: ${median(ws.map((w) => w.rate)).toFixed(0)} req/s, ` +
      `${median(ws.map((w) => w.cpu)).toFixed(1)} µs CPU per request (medians)`;
    console.log(process.env.BENCH_KEYED ? "keyed: every request with a paying account's API key" : 'anonymous');
    console.log(describe(a, runs.a));
    console.log(describe(b, runs.b));
    console.log(
      `ratio A ÷ B per round (min / median / max): req/s **${spread(ratios(runs.a, runs.b, (w) => w.rate))}×**, ` +
        `CPU per request ${spread(ratios(runs.a, runs.b, (w) => w.cpu))}×; load average ${before} → ${loadAverage()}`,
    );
  } finally {
    site.close();
    a.stop();
    b.stop();
  }
});
