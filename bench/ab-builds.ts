// `npm run bench:ab -- <other checkout>`: cached POST /fetch of this checkout against another one (an older commit
// in a git worktree), each the shipped configuration of bench/servers.ts in its own process, measured interleaved
// (A B B A, ROUNDS times) so that whatever else the machine does weighs on both alike. Prints req/s and server CPU
// per request for each, and their ratios. Each checkout runs its own servers.ts: from 8621731 on that is the built
// app (dist/main.js), before it the sources under tsx, so compare a later commit with one from 8621731 on.
// `npm run bench:ab -- --production`: this checkout twice, the production set-up (CACHE_URL on Redis, DATABASE_URL on
// Postgres, from BENCH_REDIS_URL and BENCH_DATABASE_URL or the local defaults) against the embedded default.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { loadWindow, startServerChild, type LoadWindow } from './processes.js';

const other = process.argv[2];
if (!other) throw new Error('usage: npm run bench:ab -- <path of the other checkout> | --production');
const production = other === '--production';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 2000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Server {
  name: string;
  app: string;
  site: string;
  pid: number;
  stop(): void;
}

async function start(name: string, cwd: string, env: Record<string, string> = {}): Promise<Server> {
  const child = await startServerChild<{ app: string; site: string; pid?: number }>(
    'bench/servers.ts',
    [],
    ['app', 'site'],
    { cwd, env },
  );
  // Since servers.ts runs the built app in a process of its own it names that process; before, it was the app.
  return { name, ...child.addresses, pid: child.addresses.pid ?? child.pid, stop: child.stop };
}

const load = (server: Server, ms: number) =>
  loadWindow(server.app, server.pid, JSON.stringify({ url: `${server.site}/article` }), ms);

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
    ? await start('production (Redis, Postgres)', process.cwd(), { CACHE_URL: REDIS_URL, DATABASE_URL: databaseUrl })
    : await start('this checkout', process.cwd());
  const b = production ? await start('embedded default', process.cwd()) : await start('other checkout', resolve(other));
  try {
    for (const server of [a, b]) await load(server, WINDOW_MS);
    const runs = new Map([a, b].map((s) => [s, [] as LoadWindow[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of [a, b, b, a]) runs.get(server)!.push(await load(server, WINDOW_MS / 2));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const summary = (s: Server) => {
      const r = runs.get(s)!;
      return {
        rate: median(r.map((x) => x.rate)),
        cpu: median(r.map((x) => x.cpu)),
        rates: r.map((x) => x.rate),
      };
    };
    const [sa, sb] = [summary(a), summary(b)];
    const { loadavg } = await import('node:os');
    console.log(
      `load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}; ${ROUNDS} rounds of A B B A, ${WINDOW_MS / 2} ms each`,
    );
    for (const [s, x] of [
      [a, sa],
      [b, sb],
    ] as const) {
      const rates = x.rates.map((r) => r.toFixed(0));
      console.log(
        `${s.name}: median ${x.rate.toFixed(0)} req/s (min ${Math.min(...x.rates).toFixed(0)}, max ` +
          `${Math.max(...x.rates).toFixed(0)}; ${rates.join(' ')}), ${x.cpu.toFixed(1)} µs server ` +
          `CPU per request`,
      );
    }
    console.log(
      `ratio this/other: ${(sa.rate / sb.rate).toFixed(3)}× req/s, ${(sa.cpu / sb.cpu).toFixed(3)}× CPU per request`,
    );
  } finally {
    a.stop();
    b.stop();
  }
});
