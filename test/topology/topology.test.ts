// The production topology as a whole: three API processes from the build behind nginx (deploy/nginx), sharing
// Postgres and Redis. Through the load balancer only: shared accounts, keys, credits, cache and rate limits, then
// faults under steady load (kill -9, a rolling restart, Redis and Postgres restarts). Skipped without nginx or
// redis-server, a failure under CI=true. TOPOLOGY_LOAD_MS and TOPOLOGY_CONNECTIONS size the load.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildIfStale } from '../helpers/build.js';
import { createPostgresSchema } from '../helpers/databases.js';
import { killAll, sleep, waitUntil } from './children.js';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { startSite, type Site } from './site.js';
import { missingTools, nginxAccess, nginxErrors, startPostgres, startRedis, type RedisServer } from './stack.js';
import { call, ledgerRows, newAccount, settledMoney, startTopology, type Topology } from './topology.js';

const LOAD_MS = Number(process.env.TOPOLOGY_LOAD_MS ?? 6000);
const CONNECTIONS = Number(process.env.TOPOLOGY_CONNECTIONS ?? 50);
/** Accounts the load is spread over: one account's charges are serialised by its row lock. */
const ACCOUNTS = Number(process.env.TOPOLOGY_ACCOUNTS ?? 10);
const CI = process.env.CI === 'true';
const problem = missingTools() ?? (process.env.TEST_DATABASE_URL ? null : 'TEST_DATABASE_URL is not set');

/** Figures for BENCHMARKS.md, printed at the end (node --test shows them as diagnostics). */
const figures: Record<string, unknown> = {};

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  await killAll();
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  if (Object.keys(figures).length > 0) console.log(`topology figures: ${JSON.stringify(figures, null, 2)}`);
});

function baseEnv(databaseUrl: string, cacheUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    CACHE_URL: cacheUrl,
    LOG_LEVEL: 'info',
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    FETCH_TIMEOUT_MS: '10000',
    ROBOTS_TXT: 'ignore',
    BROWSER_POOL_SIZE: '0',
    TRUST_PROXY: 'loopback',
    SHUTDOWN_GRACE_MS: '20000',
    // A killed process's credit leases are reclaimed this long after its last write (at most 1.5x it).
    CREDIT_LEASE_TTL_MS: '4000',
    FREE_MONTHLY_CREDITS: '5',
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_MAIL_PER_HOUR: '0',
    RATE_LIMIT_FREE: '0',
    RATE_LIMIT_STARTER: '9',
    RATE_LIMIT_SCALE: '0',
  };
}

/** A counter of one process's /metrics (read directly: scraping is not traffic through the balancer). */
async function metric(base: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * Once no lease is held, for each account to the millicredit: what its row shows used is what its ledger charged, and
 * that is what the answers it received said. A charge is kept only once its answer has left the process, so an answer
 * cut by a kill is never charged; `uncharged` allows for answers that left in the instant before a kill, before their
 * charge reached the spend journal (the house's loss, never the caller's).
 */
async function assertMoney(
  topology: Topology,
  run: { accountIds: number[]; apiKeys: string[]; before: number[] },
  load: LoadResult,
  uncharged = 0,
) {
  const { accountIds } = run;
  const { used, ledger } = await settledMoney(topology, accountIds);
  const answered = run.apiKeys.map((key, i) => run.before[i]! + (load.creditsAnswered[key] ?? 0));
  assert.deepEqual(used, ledger, 'usage is the sum of the ledger');
  for (const [i, millis] of ledger.entries())
    assert.ok(millis <= answered[i]!, `account ${accountIds[i]}: ledger ${millis} above its answers ${answered[i]}`);
  const missing = ledger.reduce((sum, millis, i) => sum + answered[i]! - millis, 0);
  assert.ok(
    missing <= uncharged,
    `${missing} millicredits of answers received were not charged (at most ${uncharged})`,
  );
  return { used, answered, missing };
}

function summary(load: LoadResult) {
  const { requests, served, byStatus, p50Ms, p99Ms, rate } = load;
  return { requests, served, failures: load.failures.length, byStatus, p50Ms, p99Ms, rate };
}

describe(
  'topology: three API processes behind nginx, on Postgres and Redis',
  { skip: problem && !CI ? problem : false },
  () => {
    let topology: Topology;
    let redis: RedisServer;
    let site: Site;
    let pages = 0;
    const uncached = () => site.url(`/page/${process.pid}-${Date.now()}-${pages++}`);

    before(async () => {
      if (problem) throw new Error(`the topology test needs nginx, redis-server and Postgres in CI: ${problem}`);
      buildIfStale();
      site = await startSite();
      cleanups.push(() => site.close());
      redis = await startRedis();
      const databaseUrl = await createPostgresSchema({ after: (fn) => cleanups.push(fn) });
      topology = await startTopology({ processes: 3, env: baseEnv(databaseUrl, redis.url) });
      cleanups.push(() => topology.close());
    });

    /** Load options for ACCOUNTS fresh accounts on the scale plan, with `count` pages cached first. */
    async function loadFor(count: number): Promise<{
      accountIds: number[];
      apiKeys: string[];
      options: Omit<LoadOptions, 'durationMs'>;
      /** Each account's ledger before the load (the first account paid for caching the pages). */
      before: number[];
    }> {
      const accounts = [];
      for (let i = 0; i < ACCOUNTS; i++) accounts.push(await newAccount(topology, 'scale'));
      const cachedUrls = Array.from({ length: count }, () => uncached());
      const key = { 'x-service-key': accounts[0]!.apiKey };
      for (const url of cachedUrls) assert.equal((await call(topology.lb, 'POST', '/fetch', { url }, key)).status, 200);
      const options = {
        base: topology.lb,
        apiKeys: accounts.map((a) => a.apiKey),
        connections: CONNECTIONS,
        cachedUrls,
        cachedShare: 0.5,
        freshUrl: uncached,
      };
      const accountIds = accounts.map((a) => a.id);
      const { ledger: before } = await settledMoney(topology, accountIds);
      return { accountIds, apiKeys: accounts.map((a) => a.apiKey), options, before };
    }

    test('an account made through one process works on the others; a revoked key is refused by all at once', async () => {
      const { apiKey, keyId } = await newAccount(topology);
      const before = await Promise.all(
        topology.apis.map((api) =>
          metric(api.base, 'fetchdown_http_requests_total', 'route="/account/me",method="GET",status="200"'),
        ),
      );
      for (let i = 0; i < 6; i++)
        assert.equal(
          (await call(topology.lb, 'GET', '/account/me', undefined, { 'x-service-key': apiKey })).status,
          200,
        );
      const afterwards = await Promise.all(
        topology.apis.map((api) =>
          metric(api.base, 'fetchdown_http_requests_total', 'route="/account/me",method="GET",status="200"'),
        ),
      );
      afterwards.forEach((count, i) =>
        assert.ok(
          count > before[i]!,
          `process ${i} answered none of the /account/me requests: ${before.join(' ')} → ${afterwards.join(' ')}`,
        ),
      );

      const second = await call(topology.lb, 'POST', '/account/keys?label=second', undefined, {
        'x-service-key': apiKey,
      });
      assert.equal(second.status, 200, second.text);
      const revoked = await call(topology.lb, 'DELETE', `/account/keys/${keyId}`, undefined, {
        'x-service-key': second.body.api_key,
      });
      assert.equal(revoked.status, 200, revoked.text);
      for (let i = 0; i < 6; i++) {
        const res = await call(topology.lb, 'GET', '/account/me', undefined, { 'x-service-key': apiKey });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.body.code, 'invalid_api_key');
        assert.equal(
          (await call(topology.lb, 'GET', '/account/me', undefined, { 'x-service-key': second.body.api_key })).status,
          200,
        );
      }
    });

    test('20 concurrent fetches against 5 credits over three processes serve exactly 5, one ledger row each', async () => {
      const account = await newAccount(topology); // free plan: FREE_MONTHLY_CREDITS=5
      const statuses = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const url = site.url(`/slow/150/credits-${process.pid}-${Date.now()}-${i}`);
          return (await call(topology.lb, 'POST', '/fetch', { url }, { 'x-service-key': account.apiKey })).status;
        }),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 402).length, 15, JSON.stringify(statuses));
      const money = await settledMoney(topology, [account.id]);
      assert.deepEqual(money, { used: [5000], ledger: [5000] });
      // Each 402 is a row that charges nothing (written within a flush of the process that refused it).
      await waitUntil(
        null,
        'the 402 rows written',
        async () => (await ledgerRows(topology, [account.id])).other === 15,
        10_000,
      );
      assert.deepEqual(await ledgerRows(topology, [account.id]), { ok: 5, other: 15, credits: 5 });
    });

    test('a page fetched through one process is a cache hit on the others; DELETE /cache is seen by all', async () => {
      const { apiKey } = await newAccount(topology, 'scale');
      const key = { 'x-service-key': apiKey };
      const url = uncached();
      const first = await call(topology.lb, 'POST', '/fetch', { url }, key);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.cache.hit, false);
      for (let i = 0; i < 3; i++) {
        const again = await call(topology.lb, 'POST', '/fetch', { url }, key);
        assert.equal(again.body.cache.hit, true, `request ${i + 2} (another process) missed the cache`);
        assert.equal(again.body.content, first.body.content);
      }
      assert.equal(site.hits('/page/') > 0, true);
      const deleted = await call(topology.lb, 'DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, key);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.body.deleted, true);
      for (let i = 0; i < 3; i++) {
        const status = await call(topology.lb, 'GET', `/cache?url=${encodeURIComponent(url)}`, undefined, key);
        assert.equal(status.body.cached, false, `process ${i} still sees the deleted entry`);
      }
      const refetched = await call(topology.lb, 'POST', '/fetch', { url }, key);
      assert.equal(refetched.body.cache.hit, false);
    });

    test('rate limits are counted once across the three processes', async () => {
      const { apiKey } = await newAccount(topology, 'starter'); // RATE_LIMIT_STARTER=9 per minute
      const statuses = await Promise.all(
        Array.from(
          { length: 15 },
          async () => (await call(topology.lb, 'GET', '/account/me', undefined, { 'x-service-key': apiKey })).status,
        ),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 9, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 6, JSON.stringify(statuses));
    });

    test('kill -9 of one process under load: what it held comes back; answered requests are billed once, to the millicredit', async () => {
      const run = await loadFor(20);
      const { accountIds, options } = run;
      const ledgerBefore = await ledgerRows(topology, accountIds);
      let inFlight = -1;
      let goneAt = 0;
      const loadStart = Date.now();
      const victim = `127.0.0.1:${topology.apis[1]!.port}`;
      const killed = (async () => {
        await sleep(LOAD_MS / 3);
        inFlight = await metric(topology.apis[1]!.base, 'fetchdown_http_requests_in_flight', '').catch(() => -1);
        ({ goneAt } = await topology.kill9(1));
      })();
      const load = await runLoad({ ...options, durationMs: LOAD_MS, until: killed });
      await killed;
      // The killed process's leases expire and are reclaimed (its successor on the port reads its journal at once):
      // what it held for the requests it never answered is given back, and every answer that left is charged.
      const money = await assertMoney(topology, run, load, 1000);
      const ledger = await ledgerRows(topology, accountIds);
      const billed = ledger.ok - ledgerBefore.ok;
      figures.kill9 = { ...summary(load), inFlightGaugeBeforeKill: inFlight, ledgerRowsOk: billed, money };
      // Only requests that process held when it died can fail, and only as the balancer's 502 for a connection cut
      // mid-answer: nginx's log says where each failed request went and when it arrived.
      for (const failure of load.failures)
        assert.equal(failure.status, 502, `${JSON.stringify(failure)}\n${nginxErrors(topology.nginx)}`);
      const failed = nginxAccess(topology.nginx).filter(
        (line) => line.startedAt >= loadStart - 1 && line.status >= 500,
      );
      assert.equal(failed.length, load.failures.length);
      for (const line of failed) {
        assert.ok(
          line.upstreams.endsWith(victim),
          `a failed request went to ${line.upstreams}, not the killed ${victim}`,
        );
        assert.ok(
          line.startedAt <= goneAt,
          `a failed request arrived ${line.startedAt - goneAt} ms after the process was gone`,
        );
      }
      // Every answered request has its row (but for one that left in the instant before the kill); a request whose
      // answer was cut has a row that charges nothing, or none when the process died before it was settled.
      assert.ok(billed <= load.served && billed >= load.served - 1, `${billed} rows for ${load.served} answers`);
      assert.ok(ledger.other - ledgerBefore.other <= load.failures.length);
    });

    test('a rolling restart under load (SIGTERM each process in turn) fails zero requests and bills exactly the answers', async () => {
      const run = await loadFor(20);
      const { accountIds, options } = run;
      const ledgerBefore = await ledgerRows(topology, accountIds);
      const exits: string[] = [];
      const restarts = (async () => {
        await sleep(1000);
        for (let i = 0; i < topology.apis.length; i++) {
          exits.push((await topology.restart(i)).exit);
          await sleep(500);
        }
      })();
      const load = await runLoad({ ...options, durationMs: LOAD_MS, until: restarts });
      await restarts;
      assert.deepEqual(load.failures, [], nginxErrors(topology.nginx));
      assert.deepEqual(exits, ['0', '0', '0']);
      // Each process wrote its rows and returned its leases before it exited.
      await assertMoney(topology, run, load);
      const billed = (await ledgerRows(topology, accountIds)).ok - ledgerBefore.ok;
      figures.rollingRestart = { ...summary(load), exits, ledgerRowsOk: billed };
      assert.equal(billed, load.served);
    });

    test('Redis restarted under load: fetches go on uncached, /ready names the cache while it is down, processes reconnect', async () => {
      const run = await loadFor(20);
      const { options } = run;
      let downReady: { status: number; body: any } | undefined;
      const outage = (async () => {
        await sleep(1000);
        await redis.stop();
        const api = topology.apis[0]!;
        await waitUntil(
          null,
          '/ready answering 503 while Redis is down',
          async () => {
            downReady = await call(api.base, 'GET', '/ready');
            return downReady.status === 503;
          },
          15_000,
        );
        await sleep(2000);
        await redis.start();
        for (const each of topology.apis) {
          await waitUntil(
            null,
            `process ${each.port} reconnecting to Redis`,
            async () => (await call(each.base, 'GET', '/ready')).status === 200,
            30_000,
          );
        }
        await sleep(1000);
      })();
      const load = await runLoad({ ...options, durationMs: LOAD_MS, until: outage });
      await outage;
      figures.redisRestart = summary(load);
      assert.equal(downReady!.body.checks.cache.ok, false);
      assert.equal(downReady!.body.checks.database.ok, true);
      assert.deepEqual(load.failures, []);
      // The spend journal's Redis copies went with Redis; the processes still had their rows and wrote them.
      await assertMoney(topology, run, load);
      const { apiKey } = await newAccount(topology, 'scale');
      const url = uncached();
      await call(topology.lb, 'POST', '/fetch', { url }, { 'x-service-key': apiKey });
      assert.equal(
        (await call(topology.lb, 'POST', '/fetch', { url }, { 'x-service-key': apiKey })).body.cache.hit,
        true,
        'the cache works again',
      );
    });

    test('Postgres restarted under load: keyed requests answer 503 store_unavailable while it is down, then succeed, no process restarted', async (t) => {
      const postgres = await startPostgres((fn) => cleanups.push(fn));
      if (typeof postgres === 'string') {
        if (CI) throw new Error(postgres);
        return t.skip(postgres);
      }
      const own = await startTopology({ processes: 3, env: baseEnv(postgres.url, redis.url) });
      cleanups.push(() => own.close());
      const account = await newAccount(own, 'scale');
      const key = { 'x-service-key': account.apiKey };
      const url = uncached();
      assert.equal((await call(own.lb, 'POST', '/fetch', { url }, key)).status, 200);
      let downReady: { status: number; body: any } | undefined;
      let recovered = 0;
      const outage = (async () => {
        await sleep(1000);
        await postgres.stop();
        await sleep(500);
        downReady = await call(own.apis[0]!.base, 'GET', '/ready');
        await sleep(2000);
        await postgres.start();
        const started = Date.now();
        await waitUntil(
          null,
          'a keyed request succeeding after Postgres is back',
          async () => (await call(own.lb, 'GET', '/account/me', undefined, key)).status === 200,
          30_000,
        );
        recovered = Date.now() - started;
        await sleep(1000);
      })();
      const load = await runLoad({
        base: own.lb,
        apiKeys: [account.apiKey],
        connections: 10,
        durationMs: LOAD_MS,
        until: outage,
        cachedUrls: [url],
        cachedShare: 0.5,
        freshUrl: uncached,
        timeoutMs: 15_000,
      });
      figures.postgresRestart = { ...summary(load), recoveredMs: recovered };
      for (const api of own.apis)
        assert.equal(api.child.hasExited(), false, `process ${api.port} died:\n${api.child.output()}`);
      await outage;
      assert.equal(downReady?.status, 503);
      assert.equal(downReady.body.checks.database.ok, false);
      const unexpected = load.failures.filter((f) => f.status !== 503 || !f.detail.includes('"store_unavailable"'));
      assert.deepEqual(
        unexpected.slice(0, 5),
        [],
        `every failure is a 503 store_unavailable (${load.failures.length} failures)`,
      );
      assert.ok(load.failures.length > 0, 'some requests ran while Postgres was down');
      const after = await Promise.all(
        Array.from({ length: 12 }, async () => (await call(own.lb, 'POST', '/fetch', { url }, key)).status),
      );
      assert.deepEqual(after, Array(12).fill(200));
      // Rows answered while Postgres was away waited in memory and the journal, and were written once it was back.
      const money = await settledMoney(own, [account.id]);
      assert.deepEqual(money.used, money.ledger, 'usage is the sum of the ledger');
      assert.equal(money.ledger[0], 1000 + (load.creditsAnswered[account.apiKey] ?? 0) + 12 * 100);
    });
  },
);
