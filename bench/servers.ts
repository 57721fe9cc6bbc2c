// Child process for `npm run bench`: the app as shipped (`node dist/main.js`, built when stale; esbuild's bundle runs
// measurably cheaper than the sources under tsx) and the fixture site, so load comes from another process. Prints one
// JSON line with their addresses and the API process's pid (whose CPU the benchmarks read), then serves until killed.
import { rmSync } from 'node:fs';
import { buildIfStale } from '../test/helpers/build.js';
import { startFixtureSite } from '../test/helpers/fixture-site.js';
import { freePort, killAll } from '../test/topology/children.js';
import { startApi, tempDir } from '../test/topology/stack.js';
import { PAYING_ENV, payingKey } from './accounts.js';

const site = await startFixtureSite();
buildIfStale();
// A fresh data directory each run: a ledger grown by earlier runs would make every run slower than the last.
const DATA_DIR = tempDir('bench-servers');
process.on('SIGTERM', () => process.exit(0));
process.on('exit', () => {
  void killAll();
  rmSync(DATA_DIR, { recursive: true, force: true });
});
// The configuration we ship (log level, embedded cache, metering, rate limiting), except what a loopback benchmark
// needs: the fixture site is on 127.0.0.1, and the anonymous limit is counted as usual but set too high to refuse.
// CACHE_URL and DATABASE_URL, when set, give the production set-up (`npm run bench:ab -- --production`);
// BENCH_API_ROOT, another checkout whose build (dist/main.js) is served instead of this one's (`npm run bench:ab`);
// BENCH_KEYED, an API key of a paying account is printed too, for load with a key (`BENCH_KEYED=1 npm run bench:ab`).
const { CACHE_URL, DATABASE_URL, BENCH_API_ROOT, BENCH_KEYED } = process.env;
const api = await startApi(
  await freePort(),
  {
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    RATE_LIMIT_ANONYMOUS: String(2 ** 40),
    ...(BENCH_KEYED ? PAYING_ENV : {}),
    ...(CACHE_URL ? { CACHE_URL } : {}),
    ...(DATABASE_URL ? { DATABASE_URL } : {}),
  },
  DATA_DIR,
  BENCH_API_ROOT,
);
const primed = await fetch(`${api.base}/fetch`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ url: site.url('/article') }),
});

const key = BENCH_KEYED ? await payingKey(api.base, DATA_DIR, DATABASE_URL) : undefined;

process.stdout.write(
  JSON.stringify({ app: api.base, site: site.origin, primed: primed.status, pid: api.child.process.pid, key }) + '\n',
);
