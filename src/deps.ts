// The composition root: builds every adapter, service and the operations from the config, once per process. The
// HTTP app, the stdio MCP server, the CLI and the tests receive this object; each module gets its slice of the config.
import pino from 'pino';
import { createAccountServices, type Clock } from './accounts/index.js';
import { createBilling } from './billing/index.js';
import { createCache } from './cache/index.js';
import type { Config } from './config.js';
import { createFetchers } from './fetchers/index.js';
import type { AddressRules } from './net/guard.js';
import { createSafeClient } from './net/safe-client.js';
import { agentMode, forCaller, type AgentHandle } from './operations/agent.js';
import { createOperations } from './operations/index.js';
import { createRemoteOperations } from './operations/remote.js';
import { createSearchProvider } from './search/index.js';
import { createEstimator } from './services/estimate.js';
import { createFetchService } from './services/fetch-service.js';
import { createSearchService } from './services/search.js';

/**
 * options.clock: the time of the accounts (months, expiries) and of cache expiry; the system clock unless given.
 * options.addresses: which addresses the SSRF guard blocks and how it resolves names (tests: a public 127.0.0.1).
 */
export function createDeps(config: Config, options: { clock?: Clock; addresses?: AddressRules } = {}) {
  const log = pino({ level: config.LOG_LEVEL, name: 'fetchdown' });
  const cache = createCache(config, options.clock);
  const client = createSafeClient({
    allowPrivateNetworks: config.FETCH_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: config.FETCH_TIMEOUT_MS,
    maxBytes: config.FETCH_MAX_BYTES,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
    userAgent: config.USER_AGENT,
    ...options.addresses,
  });
  const fetchers = createFetchers(config, { client, cache, addresses: options.addresses });
  const fetchService = createFetchService({ config, cache, router: fetchers.router, clock: options.clock });
  const estimate = createEstimator({ client, fetchService });
  const search = createSearchService({ provider: createSearchProvider(config), fetchService });
  const accountServices = createAccountServices(config, options);
  const operations = createOperations({
    fetchService,
    estimate,
    search,
    accounts: accountServices.accounts,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    onLedgerError: (error, context) => log.error({ err: error }, `ledger write failed while ${context}`),
  });
  return {
    config,
    cache,
    operations,
    store: accountServices.store,
    accounts: accountServices.accounts,
    rateLimiter: accountServices.rateLimiter,
    billing: createBilling(config, { store: accountServices.store, now: () => accountServices.accounts.clock.now() }),
    async close() {
      await Promise.allSettled([fetchers.close(), client.close(), cache.close(), accountServices.close()]);
    },
  };
}

export type Deps = ReturnType<typeof createDeps>;

/**
 * The agent operations for the CLI and the stdio MCP server: remote when FETCHDOWN_API_URL and FETCHDOWN_API_KEY are
 * set (loadConfig refuses one without the other), billed to that key; else the pipeline in this process, unmetered.
 */
export function createAgentOperations(config: Config): AgentHandle {
  if (agentMode(config) === 'remote' && config.FETCHDOWN_API_URL && config.FETCHDOWN_API_KEY) {
    const operations = createRemoteOperations({
      baseUrl: config.FETCHDOWN_API_URL,
      apiKey: config.FETCHDOWN_API_KEY,
      // A search is a provider call plus a round of fetches, each of which may use the whole fetch deadline.
      timeoutMs: config.FETCH_TIMEOUT_MS * 3,
    });
    return { mode: 'remote', operations, close: async () => {} };
  }
  const deps = createDeps(config);
  return { mode: 'local', operations: forCaller(deps.operations, { kind: 'local' }), close: () => deps.close() };
}
