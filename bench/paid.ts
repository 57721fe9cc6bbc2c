// `npm run bench:paid`: the path a paying customer takes, a keyed (X-Service-Key) cached POST /fetch of one page (the
// benchmark's median page, from bench/serving.ts's site), on CONNECTIONS keep-alive connections. Each row is a ratio
// measured in interleaved rounds (BENCH_ROUNDS alternations of BENCH_WINDOW_MS, the order flipped every round), with
// min / median / max over the rounds and the load average before and after:
//   (a) the production set-up (2 API processes from dist/ behind nginx with deploy/nginx's configuration, Postgres,
//       Redis) against the embedded default (1 process, SQLite in a temporary DATA_DIR), both keyed: req/s, and CPU
//       per request summed over every process of each side (the API processes, nginx's master and worker, the
//       postmaster's whole tree, redis-server), from /proc;
//   (b) one key over 2 API processes against 1 API process, both the production set-up behind nginx: req/s;
//   (c) keyed against anonymous on the embedded default: req/s;
//   (d) Postgres commits per keyed cached request over every production window of (b) and (a) (which run in that
//       order, then (c)): pg_stat_database's xact_commit, read once the backends have reported their counts.
// Redis, nginx and the API processes are the bench's own (test/topology). Postgres is the server at BENCH_DATABASE_URL
// (the local one by default), which must run on this machine for its CPU to be read; the run gets a database of its
// own, dropped at the end, so that xact_commit counts its commits alone, and other clients' backends of that server
// are left out of the CPU (and said so). The accounts are on the scale plan, with credits for any run and the plan's
// rate limit counted as usual but too high to refuse. Any answer other than 200 is counted, printed, and fails the
// run (exit 1).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildIfStale } from '../test/helpers/build.js';
import { PAYING_ENV, payingKey } from './accounts.js';
import { freePort, killAll, sleep } from '../test/topology/children.js';
import { missingTools, startApi, startRedis, tempDir } from '../test/topology/stack.js';
import { newAccount, startTopology, type Topology } from '../test/topology/topology.js';
import {
  CONNECTIONS,
  loadAverage,
  loadWindow,
  median,
  readProcesses,
  spread,
  treeCpu,
  type CpuMeter,
  type LoadWindow,
} from './processes.js';
import { interleave, ratios, SERVING_HEADER, startServingSite } from './serving.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5); // as interleave() reads it
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 2000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * How long after the last request every commit is in pg_stat_database: a backend reports its counts at most once a
 * second, and one that goes idle with counts unreported reports them 10 s later (PGSTAT_IDLE_INTERVAL), or when the
 * API's pool closes it (idle for 10 s). Measured here: the last counts arrived 9–10 s after the load stopped.
 */
const STATS_SETTLE_MS = 11_000;

/**
 * The shipped configuration but for what a loopback benchmark needs (as bench/servers.ts): the site is on 127.0.0.1,
 * and the limits of both callers are counted as usual but too high to refuse; the scale plan's credits last any run.
 */
const ENV = {
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  RATE_LIMIT_ANONYMOUS: String(2 ** 40),
  ...PAYING_ENV,
};

interface Side {
  name: string;
  origin: string;
  headers: Record<string, string>;
  /** The processes whose CPU a window reads, by part, each with all its descendants. */
  parts: Record<string, number[]>;
  /** Over its measured windows (not the warm-ups): CPU µs by part, and requests served. */
  cpu: Record<string, number>;
  served: number;
}

async function redisPid(url: string): Promise<number> {
  const client = new Redis(url);
  try {
    const pid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
    if (!pid) throw new Error(`no process_id in ${url}'s INFO`);
    return pid;
  } finally {
    client.disconnect();
  }
}

const problem = missingTools();
if (problem) throw new Error(`bench:paid needs nginx and redis-server: ${problem}`);
buildIfStale();

const cleanups: (() => unknown)[] = [];
process.on('SIGINT', () => process.exit(130));
process.on('exit', () => void killAll());

const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
const database = `fd_bench_paid_${randomBytes(5).toString('hex')}`;
await admin.query(`create database ${database} template template0`);
cleanups.push(async () => {
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
});

try {
  const databaseUrl = new URL(DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  const backend = (await admin.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const postmaster = readProcesses().get(backend)?.parent;
  if (!postmaster) throw new Error(`Postgres at ${DATABASE_URL} does not run on this machine: its CPU cannot be read`);

  const site = await startServingSite();
  cleanups.push(() => site.close());
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const production = { ...ENV, DATABASE_URL: databaseUrl.href, CACHE_URL: redis.url };
  const two = await startTopology({ processes: 2, env: production, bufferedLog: true });
  cleanups.push(() => two.close());
  const one = await startTopology({ processes: 1, env: production, bufferedLog: true });
  cleanups.push(() => one.close());
  const dataDir = tempDir('paid-embedded');
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const embedded = await startApi(await freePort(), ENV, dataDir);
  cleanups.push(() => killAll());

  // One account in each database, on the scale plan; the production set-ups share theirs (one key over both).
  const paying = await newAccount(two, 'scale');
  const embeddedKey = { 'x-service-key': await payingKey(embedded.base, dataDir) };

  const shared = { postgres: [postmaster], redis: [await redisPid(redis.url)] };
  const topologyParts = (t: Topology) => ({
    api: t.apis.map((api) => api.child.process.pid!),
    nginx: [t.nginx.child.process.pid!],
    ...shared,
  });
  const side = (name: string, origin: string, headers: Record<string, string>, parts: Side['parts']): Side => ({
    name,
    origin,
    headers,
    parts,
    cpu: Object.fromEntries(Object.keys(parts).map((part) => [part, 0])),
    served: 0,
  });
  const keyed = { 'x-service-key': paying.apiKey };
  const twoProcesses = side('production set-up, 2 API processes, keyed', two.lb, keyed, topologyParts(two));
  const oneProcess = side('production set-up, 1 API process, keyed', one.lb, keyed, topologyParts(one));
  const embeddedApi = { api: [embedded.child.process.pid!] };
  const embeddedKeyed = side('embedded default, keyed', embedded.base, embeddedKey, embeddedApi);
  const embeddedAnonymous = side('embedded default, anonymous', embedded.base, {}, embeddedApi);

  /** Other clients' backends on the Postgres server (another database, this bench's admin connection). */
  const otherClients = async () =>
    new Set(
      (
        await admin.query<{ pid: number }>(
          "select pid from pg_stat_activity where backend_type = 'client backend' and datname is distinct from $1",
          [database],
        )
      ).rows.map((row) => row.pid),
    );
  let othersMicros = 0;
  const failures = new Map<string, Record<number, number>>();
  const body = JSON.stringify({ url: `${site.origin}/answer` });

  /** One load window on `side`, its CPU read by part; a warm-up's is not added to the side's totals. */
  async function window(s: Side, ms = WINDOW_MS, warmUp = false): Promise<LoadWindow> {
    const used: Record<string, number> = {};
    let others = 0;
    const meter: CpuMeter = () => {
      const table = readProcesses();
      const before = Object.values(s.parts).map((roots) => treeCpu(roots, table));
      return async () => {
        const now = readProcesses();
        const after = Object.values(s.parts).map((roots) => treeCpu(roots, now));
        const excluded = s.parts.postgres ? await otherClients() : new Set<number>();
        let total = 0;
        Object.keys(s.parts).forEach((part, i) => {
          for (const [pid, cpu] of after[i]!) {
            const delta = cpu - (before[i]!.get(pid) ?? 0);
            if (excluded.has(pid)) others += delta;
            else {
              used[part] = (used[part] ?? 0) + delta;
              total += delta;
            }
          }
        });
        return total;
      };
    };
    const result = await loadWindow(s.origin, meter, body, ms, { headers: s.headers, countFailures: true });
    const counted = failures.get(s.name) ?? {};
    for (const [status, n] of Object.entries(result.failures))
      counted[Number(status)] = (counted[Number(status)] ?? 0) + n;
    failures.set(s.name, counted);
    if (!warmUp) {
      s.served += result.served;
      for (const [part, cpu] of Object.entries(used)) s.cpu[part] = (s.cpu[part] ?? 0) + cpu;
      othersMicros += others;
    }
    return result;
  }

  const commits = async () =>
    Number(
      (await admin.query<{ n: string }>('select xact_commit as n from pg_stat_database where datname = $1', [database]))
        .rows[0]!.n,
    );
  /**
   * The run's database's commit count once every backend has reported its own: STATS_SETTLE_MS after `since` (when
   * the last request to Postgres ended), then until two reads a second apart agree.
   */
  async function settledCommits(since: number): Promise<number> {
    await sleep(Math.max(0, since + STATS_SETTLE_MS - performance.now()));
    for (let last = await commits(); ;) {
      await sleep(1000);
      const now = await commits();
      if (now === last) return now;
      last = now;
    }
  }

  const start = loadAverage();
  // The first fetch fills the cache, then JIT warm-up; the embedded windows run while Postgres's counts settle.
  for (const s of [twoProcesses, oneProcess]) await window(s, WINDOW_MS / 2, true);
  const warmedUp = performance.now();
  for (const s of [embeddedKeyed, embeddedAnonymous]) await window(s, WINDOW_MS / 2, true);
  const commitsBefore = await settledCommits(warmedUp);
  // From here on every production request counts for (d). The API processes' pools closed their idle connections
  // meanwhile (after 10 s): they open them again in these windows, not in measured ones; and (b) runs before (a), so
  // that neither production set-up is idle long enough to close them again before its last measured window.
  let productionServed = 0;
  for (const s of [twoProcesses, oneProcess]) productionServed += (await window(s, WINDOW_MS / 2, true)).served;
  const bBefore = loadAverage();
  const b = await interleave(
    () => window(twoProcesses),
    () => window(oneProcess),
  );
  const aBefore = loadAverage();
  const a = await interleave(
    () => window(twoProcesses),
    () => window(embeddedKeyed),
  );
  const productionDone = performance.now();
  const aAfter = loadAverage();
  const c = await interleave(
    () => window(embeddedKeyed),
    () => window(embeddedAnonymous),
  );
  const cAfter = loadAverage();
  const committed = (await settledCommits(productionDone)) - commitsBefore;
  productionServed += [...b.a, ...b.b, ...a.a].reduce((sum, w) => sum + w.served, 0);

  const describe = (ws: LoadWindow[]) =>
    `${median(ws.map((w) => w.rate)).toFixed(0)} req/s, ${median(ws.map((w) => w.cpu)).toFixed(0)} µs CPU/request`;
  const rate = (w: LoadWindow) => w.rate;
  const rows = [
    [
      `(a) keyed cached POST /fetch, ${CONNECTIONS} connections: production set-up (2 API processes behind nginx, ` +
        'Postgres, Redis) ÷ embedded default (1 process, SQLite); CPU of every process of each side',
      `${describe(a.a)} (medians)`,
      `embedded default, keyed: ${describe(a.b)}`,
      `req/s **${spread(ratios(a.a, a.b, rate))}×**; CPU per request **${spread(ratios(a.a, a.b, (w) => w.cpu))}×**`,
      '≥ 0.8× req/s, ≤ 1.5× CPU',
      `${aBefore} → ${aAfter}`,
    ],
    [
      '(b) one key over 2 API processes ÷ 1 API process, both the production set-up behind nginx',
      `${describe(b.a)} (medians)`,
      `1 API process: ${describe(b.b)}`,
      `req/s **${spread(ratios(b.a, b.b, rate))}×**`,
      '≥ 1.6× req/s',
      `${bBefore} → ${aBefore}`,
    ],
    [
      '(c) keyed ÷ anonymous, embedded default',
      `${describe(c.a)} (medians)`,
      `anonymous: ${describe(c.b)}`,
      `req/s **${spread(ratios(c.a, c.b, rate))}×**`,
      '≥ 0.8× req/s',
      `${aAfter} → ${cAfter}`,
    ],
    [
      '(d) Postgres commits per keyed cached request: pg_stat_database.xact_commit over every production window ' +
        'of (b) and (a)',
      `${committed} commits, ${productionServed} requests`,
      '',
      `**${(committed / productionServed).toFixed(2)}** commits per request`,
      '≤ 0.1',
      `${bBefore} → ${aAfter}`,
    ],
  ];
  console.log(`${ROUNDS} rounds, ${WINDOW_MS} ms windows; load average ${start} at the start\n`);
  for (const line of [...SERVING_HEADER, ...rows.map((row) => `| ${row.join(' | ')} |`)]) console.log(line);
  console.log('\nCPU per request by part, over each side’s measured windows (µs):');
  for (const s of [twoProcesses, oneProcess, embeddedKeyed, embeddedAnonymous]) {
    const parts = Object.entries(s.cpu).map(([part, cpu]) => `${part} ${(cpu / s.served).toFixed(0)}`);
    const total = Object.values(s.cpu).reduce((sum, cpu) => sum + cpu, 0) / s.served;
    console.log(`  ${s.name}: ${parts.join(', ')} (total ${total.toFixed(0)}; ${s.served} requests)`);
  }
  if (othersMicros > 0)
    console.log(
      `Other clients' Postgres backends used ${(othersMicros / 1000).toFixed(0)} ms CPU meanwhile, left out.`,
    );
  const failed = [...failures].filter(([, counted]) => Object.keys(counted).length > 0);
  console.log(
    `Answers other than 200: ${
      failed.length === 0 ? 'none' : failed.map(([name, counted]) => `${name}: ${JSON.stringify(counted)}`).join('; ')
    }`,
  );
  if (failed.length > 0) throw new Error('bench:paid: some answers were not 200 (above); its figures do not hold');
} finally {
  for (const cleanup of cleanups.reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch((e) => console.error(e));
}
