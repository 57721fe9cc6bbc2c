// buildTestApp(t): the real app on 127.0.0.1:0 with its own data dir, closed when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncResource } from 'node:async_hooks';
import { after as afterAll, type TestContext } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/accounts/clock.js';
import type { AddressRules } from '../../src/net/guard.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { FastifyInstance } from 'fastify';
import { databaseEnv, type DatabaseBackend, type DatabaseTestContext } from './databases.js';
import { startFixtureSite, type FixtureSite } from './fixture-site.js';

export interface TestApp {
  base: string;
  services: Deps;
  /** The Fastify instance, for what only it knows (its route table). */
  app: FastifyInstance;
  /** Idempotent; also runs when the test ends. */
  close(): Promise<void>;
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  post(path: string, body: unknown): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  get(path: string): Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

type Hookable = Pick<TestContext, 'after'> | { after(fn: () => Promise<void>): unknown };

/**
 * Node 20 attaches an `after` called inside a `before` hook to that hook, so it would run as soon as the hook ends;
 * registering from this module's top-level scope attaches it to the file instead, as meant.
 */
const fileScope = new AsyncResource('fetchdown-test-app');
const registerAfter = (t: Hookable, fn: () => Promise<void>) =>
  t.after === afterAll ? fileScope.runInAsyncScope(() => afterAll(fn)) : t.after(fn);

export interface TestAppOptions {
  clock?: Clock;
  addresses?: AddressRules;
}

/**
 * options.clock: the accounts service's clock (month rollover, link expiry); the system clock by default.
 * options.addresses: the SSRF guard's rules, e.g. 127.0.0.1 public and 127.0.0.2 private with
 * FETCH_ALLOW_PRIVATE_NETWORKS=0.
 */
export async function buildTestApp(
  t: Hookable,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const ownDir = env.DATA_DIR === undefined;
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'fetchdown-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    FETCH_ALLOW_PRIVATE_NETWORKS: '1',
    CACHE_URL: 'memory://',
    FETCH_TIMEOUT_MS: '5000',
    // Every test app calls from 127.0.0.1, and with Redis the per-IP counts are shared: tests of limits set their own.
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_MAIL_PER_HOUR: '0',
    RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR: '0',
    RATE_LIMIT_AUTH_FAILURES: '0',
    // One extraction thread, not one per core: every test app that fetches starts its own (under tsx, a thread
    // loads the extraction code in a second or more), and one is enough to take every fetch through the pool.
    EXTRACT_WORKERS: '1',
    ...env,
  });
  const services = createDeps(config, options);
  const app = await buildApp(services);
  // env.PORT: a fixed port, for tests whose PUBLIC_BASE_URL must be this server (links that leave and come back).
  await app.listen({ port: env.PORT ? Number(env.PORT) : 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await app.close();
      await services.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    })());
  registerAfter(t, close);
  async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(base + path, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  }
  return {
    base,
    services,
    app,
    close,
    request,
    post: (path, body) => request('POST', path, body),
    get: (path) => request('GET', path),
  };
}

/**
 * The fixture site and a test app for all the tests of one file, both closed when the file's tests end:
 * `const { site, api } = await startSiteAndApp(env)` at the top of the file.
 */
export async function startSiteAndApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<{ site: FixtureSite; api: TestApp }> {
  const site = await startFixtureSite();
  registerAfter({ after: afterAll }, () => site.close());
  return { site, api: await buildTestApp({ after: afterAll }, env, options) };
}

/** buildTestApp on `backend` with `env` over its settings, or null when the backend is not there (`t` skipped). */
export async function appOnDatabase(
  t: DatabaseTestContext,
  backend: DatabaseBackend,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp | null> {
  const database = await databaseEnv(t, backend);
  return database && buildTestApp(t, { ...database, ...env }, options);
}
