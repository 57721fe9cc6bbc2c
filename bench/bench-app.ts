// The real app for the benchmarks that fetch over HTTP (quality, WCXB, query, estimate): the shipped pipeline on a
// fresh data directory, an in-memory cache, loopback sites allowed, no rate limit. The app's modules are loaded on
// first use, so a bench that only scores baselines never loads them.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'undici';

export interface BenchApp {
  /** A keep-alive client of the app. */
  client: Client;
  close(): Promise<void>;
}

export async function startBenchApp(): Promise<BenchApp> {
  const { Client } = await import('undici');
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { createDeps } = await import('../src/deps.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-bench-app-'));
  const services = createDeps(
    loadConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      CACHE_URL: 'memory://',
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      ROBOTS_TXT: 'ignore',
      RATE_LIMIT_ANONYMOUS: '0',
    }),
  );
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const client = new Client(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  return {
    client,
    async close() {
      await client.close();
      await app.close();
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
