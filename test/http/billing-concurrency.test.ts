// Atomic debits: 20 concurrent fetches against 5 remaining credits serve exactly 5, on every database, and across
// two server processes sharing one Postgres database.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { DATABASES } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { spawnTracked, waitForOutput } from '../helpers/children.js';
import { buildTestApp } from '../helpers/test-app.js';

const site: FixtureSite = await startFixtureSite();
after(() => site.close());

let n = 0;
/** Distinct slow pages, so every request is an uncached 1-credit html fetch and they overlap in time. */
const slowPage = () => site.url(`/delay/150/race-${process.pid}-${Date.now()}-${n++}`);

const ENV = { FREE_MONTHLY_CREDITS: '5', CACHE_URL: 'memory://' };

/** A second API process (`tsx src/main.ts`) on its own port; resolves with its base URL once it listens. */
async function startServerProcess(
  t: { after(fn: () => Promise<void> | void): unknown },
  env: Record<string, string>,
): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-proc-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = spawnTracked(t, process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      RATE_LIMIT_ANONYMOUS: '0',
      ...env,
    },
  });
  const [, base] = await waitForOutput(server, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return base!;
}

async function fireFetches(bases: string[], apiKey: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${bases[i % bases.length]}/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...withKey(apiKey) },
        body: JSON.stringify({ url: slowPage() }),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

for (const backend of DATABASES) {
  describe(`atomic debits on ${backend.name}`, () => {
    test('20 concurrent fetches against 5 credits: exactly 5 are served and billed', async (t) => {
      const env = await backend.env(t);
      if (typeof env === 'string') return t.skip(env);
      const api = await buildTestApp(t, { ...env, ...ENV });
      const { apiKey } = await signUp(api);
      const statuses = await fireFetches([api.base], apiKey, 20);
      assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 402).length, 15);
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, 5);
      assert.equal(usage.body.allowance.remaining_credits, 0);
      assert.equal(usage.body.fetches, 5);
    });
  });
}

describe('atomic debits across two server processes', () => {
  test('two processes sharing Postgres serve exactly 5 of 20', async (t) => {
    const postgres = DATABASES.find((d) => d.name === 'postgres')!;
    const env = await postgres.env(t);
    if (typeof env === 'string') return t.skip(env);
    const api = await buildTestApp(t, { ...env, ...ENV });
    const second = await startServerProcess(t, { ...env, ...ENV });
    const { apiKey } = await signUp(api);
    const statuses = await fireFetches([api.base, second], apiKey, 20);
    assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 15);
    const usage = await fetch(`${second}/account/usage`, { headers: withKey(apiKey) }).then((r) => r.json());
    assert.equal(usage.credits_used, 5);
  });
});
