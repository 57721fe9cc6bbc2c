// Child process for `npm run bench`: the real app and the fixture site, so load comes from another process. Prints
// one JSON line with their addresses (among the app's log lines), then serves until killed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { startFixtureSite } from '../test/helpers/fixture-site.js';

const site = await startFixtureSite();
// A fresh data directory each run: a ledger grown by earlier runs would make every run slower than the last.
const DATA_DIR = mkdtempSync(join(tmpdir(), 'fetchdown-bench-'));
process.on('exit', () => rmSync(DATA_DIR, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));
// The configuration we ship (log level, embedded cache, metering, rate limiting), except what a loopback benchmark
// needs: the fixture site is on 127.0.0.1, and the anonymous limit is counted as usual but set too high to refuse.
// CACHE_URL and DATABASE_URL, when set, give the production set-up (`npm run bench:ab -- --production`).
const { CACHE_URL, DATABASE_URL } = process.env;
const services = createDeps(
  loadConfig({
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    DATA_DIR,
    RATE_LIMIT_ANONYMOUS: String(2 ** 40),
    ...(CACHE_URL ? { CACHE_URL } : {}),
    ...(DATABASE_URL ? { DATABASE_URL } : {}),
  }),
);
const app = await buildApp(services);
await app.listen({ port: 0, host: '127.0.0.1' });

const primed = await app.inject({ method: 'POST', url: '/fetch', payload: { url: site.url('/article') } });

process.stdout.write(
  JSON.stringify({
    app: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    site: site.origin,
    primed: primed.statusCode,
  }) + '\n',
);
