// `npm run bench:queues`: the job engines issue 33 named, on the work crawls give them: BENCH_JOBS (5,000) small jobs
// ({crawl id, URL}) added in one call and run 8 at once by a worker in this process, each job doing nothing else, so
// what is measured is the engine. Per engine: jobs a second from the first add to the last job done, and CPU per job
// of this process (producer and worker) plus its server's (redis-server; the whole Postgres tree, other databases'
// idle backends included), BENCH_ROUNDS (3) interleaved rounds, min / median / max. Then a worker killed with SIGKILL
// holding 8 jobs: how long until another worker has run them, with each engine set as Fetchdown would set it (a job
// lock of 30 s) or, where it cannot be set, at its own default; BENCH_DEATH_WAIT_S (150) at most.
//   - BullMQ 5 on Redis (src/queue/bullmq.ts, what production runs)
//   - plainjob on SQLite (src/queue/embedded.ts, the embedded default)
//   - pg-boss 10 on Postgres (the last major on Node 20)
//   - graphile-worker 0.16 on Postgres (the last minor on Node 20)
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger, makeWorkerUtils, run, type Runner } from 'graphile-worker';
import { Redis } from 'ioredis';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { createBullQueue } from '../src/queue/bullmq.js';
import { createEmbeddedQueue } from '../src/queue/embedded.js';
import { killAll } from '../test/topology/children.js';
import { startRedis } from '../test/topology/stack.js';
import { loadAverage, readProcesses, spread, treeCpu } from './processes.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DEATH_WAIT_S = Number(process.env.BENCH_DEATH_WAIT_S ?? 150);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = 8;
const LOCK_S = 30;
const HELD = 8;

/** One engine as the bench drives it: add jobs, work them, stop. */
interface Engine {
  add(count: number): Promise<void>;
  work(handler: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

type EngineName = 'bullmq' | 'plainjob' | 'pg-boss' | 'graphile-worker';

const job = (i: number) => ({ crawl: 'cr_bench', url: `https://example.com/page/${i}` });

/** Each engine on a queue, schema or file of its own (`tag`), so no round sees another's jobs. */
function open(name: EngineName, tag: string, urls: { redis: string; postgres: string; dir: string }): Engine {
  if (name === 'bullmq' || name === 'plainjob') {
    const queue =
      name === 'bullmq'
        ? createBullQueue(urls.redis, { name: `bench-${tag}`, lockMs: LOCK_S * 1000 })
        : createEmbeddedQueue(join(urls.dir, `${tag}.sqlite`));
    return {
      add: (count) => queue.add(Array.from({ length: count }, (_, i) => ({ name: 'page', data: job(i) }))),
      work: async (handler) => queue.work(handler, CONCURRENCY),
      close: () => queue.close(),
    };
  }
  if (name === 'pg-boss') {
    // Expired jobs (a dead worker's) are found by maintenance: as often as a job's lock lasts.
    const boss = new PgBoss({
      connectionString: urls.postgres,
      schema: `pgboss_${tag}`,
      maintenanceIntervalSeconds: LOCK_S,
    });
    boss.on('error', () => undefined);
    const started = boss.start().then(() => boss.createQueue('page', { name: 'page', expireInSeconds: LOCK_S }));
    return {
      async add(count) {
        await started;
        await boss.insert(Array.from({ length: count }, (_, i) => ({ name: 'page', data: job(i) })));
      },
      async work(handler) {
        await started;
        // pg-boss 10 hands a worker a batch; the batch's jobs run at once, as a worker of concurrency 8 would.
        await boss.work('page', { batchSize: CONCURRENCY, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          await Promise.all(jobs.map(() => handler()));
        });
      },
      close: () => boss.stop({ graceful: false, wait: true }),
    };
  }
  const schema = `graphile_${tag}`;
  let runner: Runner | undefined;
  return {
    async add(count) {
      const utils = await makeWorkerUtils({ connectionString: urls.postgres, schema });
      await utils.migrate();
      // 0.16's batch API is its SQL function (its JavaScript addJob takes one job a round trip).
      await utils.withPgClient((client) =>
        client.query(
          `select count(*) from ${schema}.add_jobs((select array_agg(row('page', json_build_object('crawl', ` +
            `'cr_bench', 'url', 'https://example.com/page/' || i), null, null, null, null, null, null)` +
            `::${schema}.job_spec) from generate_series(0, $1 - 1) i))`,
          [count],
        ),
      );
      await utils.release();
    },
    async work(handler) {
      runner = await run({
        connectionString: urls.postgres,
        schema,
        concurrency: CONCURRENCY,
        pollInterval: 500,
        noHandleSignals: true,
        logger: new Logger(() => () => undefined),
        taskList: { page: () => handler() },
      });
    },
    close: async () => runner?.stop(),
  };
}

const ENGINES: EngineName[] = ['bullmq', 'plainjob', 'pg-boss', 'graphile-worker'];

// A child that takes jobs and never finishes them, until it is killed: a worker dying mid-job.
if (process.argv[2] === '--hold') {
  const [, , , name, tag, redis, postgres, dir] = process.argv;
  const engine = open(name as EngineName, tag!, { redis: redis!, postgres: postgres!, dir: dir! });
  let taken = 0;
  await engine.work(async () => {
    if (++taken === HELD) process.send?.('held');
    await new Promise(() => undefined);
  });
} else {
  await main();
}

async function main(): Promise<void> {
  process.on('exit', () => void killAll());
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const database = `fd_bench_queues_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${database} template template0`);
  const dir = mkdtempSync(join(tmpdir(), 'fd-queues-'));
  const redis = await startRedis();
  try {
    const postgresUrl = new URL(DATABASE_URL);
    postgresUrl.pathname = `/${database}`;
    const urls = { redis: redis.url, postgres: postgresUrl.href, dir };
    const backend = (await admin.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const postmaster = readProcesses().get(backend)!.parent;
    const probe = new Redis(redis.url);
    const redisServer = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
    probe.disconnect();
    const serverOf: Record<EngineName, number[]> = {
      bullmq: [redisServer],
      plainjob: [],
      'pg-boss': [postmaster],
      'graphile-worker': [postmaster],
    };
    const cpuNow = (name: EngineName) => {
      const own = process.cpuUsage();
      const server = [...treeCpu(serverOf[name]).values()].reduce((sum, cpu) => sum + cpu, 0);
      return own.user + own.system + server;
    };

    const figures = new Map<EngineName, { rate: number; cpu: number }[]>(ENGINES.map((e) => [e, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      console.error(`round ${round} of ${ROUNDS}, load average ${loadAverage()}`);
      for (const name of round % 2 ? ENGINES : [...ENGINES].reverse()) {
        const engine = open(name, `r${round}${name.replace(/\W/g, '')}`, urls);
        let done = 0;
        let finished!: () => void;
        const all = new Promise<void>((resolve) => (finished = resolve));
        const cpu = cpuNow(name);
        const started = performance.now();
        await engine.add(JOBS);
        await engine.work(async () => {
          if (++done === JOBS) finished();
        });
        await all;
        const seconds = (performance.now() - started) / 1000;
        figures.get(name)!.push({ rate: JOBS / seconds, cpu: (cpuNow(name) - cpu) / JOBS });
        await engine.close();
      }
    }

    const deaths = new Map<EngineName, string>();
    for (const name of ENGINES) deaths.set(name, await afterDeath(name, urls));

    console.log(`\n${ROUNDS} rounds of ${JOBS} jobs, ${CONCURRENCY} at once; load ${loadAverage()}\n`);
    console.log(
      '| engine | jobs/s (min / median / max) | CPU µs a job, client + server | a worker killed holding 8 jobs |',
    );
    console.log('|---|---|---|---|');
    for (const name of ENGINES) {
      const rows = figures.get(name)!;
      console.log(
        `| ${name} | ${spread(
          rows.map((r) => r.rate),
          0,
        )} | ${spread(
          rows.map((r) => r.cpu),
          0,
        )} | ${deaths.get(name)} |`,
      );
    }
  } finally {
    await killAll();
    await redis.stop();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A child worker takes 8 jobs and is killed; the seconds until a worker here has run them (or that it did not). */
async function afterDeath(name: EngineName, urls: { redis: string; postgres: string; dir: string }): Promise<string> {
  const tag = `death${name.replace(/\W/g, '')}`;
  const producer = open(name, tag, urls);
  await producer.add(HELD);
  await producer.close();
  const child = fork(process.argv[1]!, ['--hold', name, tag, urls.redis, urls.postgres, urls.dir], {
    execArgv: process.execArgv,
    stdio: 'ignore',
  });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  child.kill('SIGKILL');
  const killed = performance.now();
  // Another worker starts (for the embedded engine: its one process starts again).
  const engine = open(name, tag, urls);
  let done = 0;
  let ranAll!: () => void;
  const recovered = new Promise<void>((resolve) => (ranAll = resolve));
  await engine.work(async () => {
    if (++done === HELD) ranAll();
  });
  const waited = await Promise.race([
    recovered.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), DEATH_WAIT_S * 1000)),
  ]);
  await engine.close();
  const seconds = ((performance.now() - killed) / 1000).toFixed(0);
  return waited ? `run again after ${seconds} s` : `${done} of ${HELD} run again within ${DEATH_WAIT_S} s`;
}
