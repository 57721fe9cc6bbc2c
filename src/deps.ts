// The composition root: builds every adapter, service and the operations from the config, once per process: the fetch
// pipeline (pipeline.ts) with the accounts and billing around it. The HTTP app and the tests receive this object; each
// module gets its slice of the config. The CLI and the stdio MCP server build only the pipeline (pipeline.ts).
import pino from 'pino';
import { createAccountServices, type Clock } from './accounts/index.js';
import { createBilling } from './billing/index.js';
import type { Config } from './config.js';
import { createCrawlBackend, redisOf } from './crawl/index.js';
import type { AddressRules } from './net/guard.js';
import { createOAuth } from './oauth/index.js';
import { createOperations } from './operations/index.js';
import { createPipeline } from './pipeline.js';

/**
 * options.clock: the time of the accounts (months, expiries) and of cache expiry; the system clock unless given.
 * options.addresses: which addresses the SSRF guard blocks and how it resolves names (tests: a public 127.0.0.1).
 */
export function createDeps(config: Config, options: { clock?: Clock; addresses?: AddressRules } = {}) {
  const log = pino({ level: config.LOG_LEVEL, name: 'fetchdown' });
  const pipeline = createPipeline(config, options);
  const accountServices = createAccountServices(config, options);
  const billing = createBilling(config, {
    store: accountServices.store,
    grants: accountServices.accounts.credits.grants,
    now: () => accountServices.accounts.clock.now(),
    planChanged: accountServices.accounts.planChanged,
  });
  const crawl = createCrawlBackend(config, {
    store: accountServices.store,
    cache: pipeline.cache,
    client: pipeline.client,
    robots: pipeline.robots,
    now: () => accountServices.accounts.clock.now(),
  });
  const operations = createOperations({
    fetchService: pipeline.fetchService,
    estimate: pipeline.estimate,
    search: pipeline.search,
    accounts: accountServices.accounts,
    billing,
    rateLimiter: accountServices.rateLimiter,
    config,
    probes: { database: accountServices.store, cache: pipeline.cache },
    publicBaseUrl: config.PUBLIC_BASE_URL,
    hostOf: pipeline.memos.hosts,
    onLedgerError: (error, context) => log.error({ err: error }, `ledger write failed while ${context}`),
    crawl,
    oauth: createOAuth(config, {
      store: accountServices.store,
      client: pipeline.client,
      clock: accountServices.accounts.clock,
    }),
  });
  // The embedded default reads its crawls in its own process, the only one on its files; with Redis, `fetchdown
  // worker` processes do.
  if (!redisOf(config))
    operations
      .workCrawls(config.CRAWL_CONCURRENCY, { releaseClaims: true })
      .catch((error: unknown) => log.error({ err: error }, 'crawls could not be resumed'));
  return {
    config,
    /** The process's logger (`fetchdown worker` has no HTTP app to log with). */
    log,
    cache: pipeline.cache,
    operations,
    store: accountServices.store,
    accounts: accountServices.accounts,
    warm: pipeline.warm,
    async close() {
      await crawl.close();
      await Promise.allSettled([pipeline.close(), accountServices.close()]);
    },
  };
}

export type Deps = ReturnType<typeof createDeps>;
