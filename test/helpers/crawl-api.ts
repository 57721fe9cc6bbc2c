// Crawls through the HTTP API for the crawl tests: the guard's rules for the crawl site (its names resolved by the
// tests' DNS, only 127.0.0.1 public), starting a crawl, waiting on its status, reading all its pages, and a crawl
// worker of the test's own (createDeps + workCrawls) for the production set-up, where API processes do not read jobs.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { AddressRules } from '../../src/net/guard.js';
import { withKey } from './accounts.js';
import { spawnTracked, waitForOutput, type Tracked } from './children.js';
import { CRAWL_SITE_RECORDS } from './crawl-site.js';
import type { TestApp } from './test-app.js';
import { createTestDns } from './test-dns.js';

/** The SSRF guard of a crawl test: the crawl site's names, 127.0.0.1 public and 127.0.0.2 (private.test) not. */
export const crawlSiteAddresses = (): AddressRules => ({
  resolveHost: createTestDns(CRAWL_SITE_RECORDS),
  isBlocked: (ip) => ip !== '127.0.0.1',
});

/**
 * With FETCH_ALLOW_PRIVATE_NETWORKS=0 the guard's rules decide, as in production; no rate limit on the plans the
 * tests put their accounts on, since waiting on a crawl asks for its status many times a second.
 */
export const CRAWL_TEST_ENV = {
  FETCH_ALLOW_PRIVATE_NETWORKS: '0',
  RATE_LIMIT_STARTER: '0',
  RATE_LIMIT_PRO: '0',
} as const;

export interface CrawlPage {
  url: string;
  credits: number;
  markdown: string;
}

/** POST /crawl, which must answer 202; the crawl's id. */
export async function startCrawl(api: TestApp, apiKey: string, body: object): Promise<string> {
  const started = await api.request('POST', '/crawl', body, withKey(apiKey));
  assert.equal(started.status, 202, started.text);
  return started.body.id as string;
}

/** GET /crawl/{id} (its first page of results), which must answer 200. */
export async function crawlStatus(api: TestApp, apiKey: string, id: string) {
  const status = await api.request('GET', `/crawl/${id}?limit=100`, undefined, withKey(apiKey));
  assert.equal(status.status, 200, status.text);
  return status.body;
}

export const isActive = (status: { status: string }) => status.status === 'queued' || status.status === 'running';

/**
 * Polls the crawl every 100 ms until `until` says so (by default: it is over), failing after `timeoutMs` with its
 * last status.
 */
export async function waitForCrawl(
  api: TestApp,
  apiKey: string,
  id: string,
  until: (status: any) => boolean = (status) => !isActive(status),
  timeoutMs = 120_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await crawlStatus(api, apiKey, id);
    if (until(status)) return status;
    if (Date.now() > deadline) assert.fail(`crawl ${id} never got there: ${JSON.stringify(status)}`);
    await sleep(100);
  }
}

/** Every page of the crawl's results, following the cursor. */
export async function allPages(api: TestApp, apiKey: string, id: string): Promise<CrawlPage[]> {
  const pages: CrawlPage[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const res = await api.request('GET', `/crawl/${id}?limit=100${query}`, undefined, withKey(apiKey));
    assert.equal(res.status, 200, res.text);
    pages.push(...(res.body.pages as CrawlPage[]));
    cursor = res.body.next_cursor as string | null;
  } while (cursor);
  return pages;
}

/** The account's ledger this month as GET /account/usage says: credits used and the crawl's rows. */
export async function usageOf(api: TestApp, apiKey: string) {
  const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
  assert.equal(usage.status, 200, usage.text);
  return usage.body as {
    credits_used: number;
    allowance: { used_credits: number; remaining_credits: number };
    balance_credits: number;
    by_operation: Record<string, { credits: number; requests: number }>;
  };
}

/**
 * A crawl worker in this process as `fetchdown worker` runs one: its own deps on `env` (the API's database and
 * Redis), reading `concurrency` jobs at once; closed when the test ends, or earlier by close().
 */
export async function startCrawlWorker(
  t: { after(fn: () => Promise<void>): unknown },
  env: Record<string, string>,
  concurrency = 4,
): Promise<Deps> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-crawl-worker-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    EXTRACT_WORKERS: '1',
    ...CRAWL_TEST_ENV,
    ...env,
  });
  const deps = createDeps(config, { addresses: crawlSiteAddresses() });
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= deps.close().finally(() => rmSync(dataDir, { recursive: true, force: true })));
  t.after(close);
  await deps.operations.workCrawls(concurrency);
  return { ...deps, close };
}

/**
 * A crawl worker as a process of its own (crawl-worker-main.ts under tsx) on `env`, over a temporary DATA_DIR unless
 * `env` names one, for a test to kill; killed when the test ends if it still runs. Resolves once it reads jobs.
 */
export async function spawnCrawlWorker(
  t: { after(fn: () => Promise<void> | void): unknown },
  env: Record<string, string>,
): Promise<Tracked> {
  let dataDir = env.DATA_DIR;
  if (!dataDir) {
    const made = mkdtempSync(join(tmpdir(), 'fetchdown-crawl-worker-'));
    t.after(() => rmSync(made, { recursive: true, force: true }));
    dataDir = made;
  }
  const worker = spawnTracked(t, process.execPath, ['--import', 'tsx', 'test/helpers/crawl-worker-main.ts'], {
    cwd: resolve(import.meta.dirname, '..', '..'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'warn',
      EXTRACT_WORKERS: '1',
      ...CRAWL_TEST_ENV,
      ...env,
      DATA_DIR: dataDir,
    },
  });
  await waitForOutput(worker, /crawl worker reading/);
  return worker;
}
