// The fetch pipeline built from the config: cache, guarded HTTP client, fetchers, and the fetch, estimate and search
// services. deps.ts puts the accounts and billing around it for the HTTP app; the CLI and the stdio MCP server use it
// alone (createAgentOperations), so their start loads no account store, Stripe, mail or HTTP framework.
import { createCache } from './cache/index.js';
import { isProduction, type Config } from './config.js';
import { createFetchers } from './fetchers/index.js';
import type { AddressRules } from './net/guard.js';
import { createSafeClient } from './net/safe-client.js';
import { agentMode, type AgentHandle } from './operations/agent.js';
import { createLocalOperations } from './operations/local.js';
import { createRemoteOperations } from './operations/remote.js';
import { createSearchProvider } from './search/index.js';
import { createHostMemo } from './operations/meter.js';
import { createAnswerMemo } from './services/answer-memo.js';
import { createViewMemos } from './services/content-view.js';
import { createEstimator } from './services/estimate.js';
import { createFetchService } from './services/fetch-service.js';
import { createPageKeyMemo } from './services/page-cache.js';
import { createSearchService } from './services/search.js';
import type { Clock } from './util/clock.js';

/**
 * The memos of recent work a process keeps besides its cache, in one place: each bounded, each made again from its key
 * when it is gone. Memos of pure functions called from module code stay beside them, each saying why: selectors'
 * checks (extract/selection.ts), URL format checks and compiled schemas (contract/validate.ts), answers' JSON
 * (http/routes/fetch.ts), and what one document's extraction reads more than once (extract/).
 */
export function createMemos() {
  return {
    /** A URL as written (and a forced fetcher) → its page's cache key and the key's hash: 1,024 URLs. */
    pageKeys: createPageKeyMemo(),
    /** A cached copy → the whole answers made from it, up to 8 ways of asking; goes with the copy. */
    answers: createAnswerMemo(),
    /** Markdown → its restyled copies (4 M characters a style), content → its block index (8 M characters). */
    views: createViewMemos(),
    /** A URL → its host, for the ledger: 512 URLs. */
    hosts: createHostMemo(),
  };
}

/**
 * options.clock: the time of cache expiry; the system clock unless given.
 * options.addresses: which addresses the SSRF guard blocks and how it resolves names (tests: a public 127.0.0.1).
 */
export function createPipeline(config: Config, options: { clock?: Clock; addresses?: AddressRules } = {}) {
  const cache = createCache(config, options.clock);
  const client = createSafeClient({
    allowPrivateNetworks: config.FETCH_ALLOW_PRIVATE_NETWORKS,
    nameSetting: !isProduction(config),
    timeoutMs: config.FETCH_TIMEOUT_MS,
    maxBytes: config.FETCH_MAX_BYTES,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
    userAgent: config.USER_AGENT,
    ...options.addresses,
  });
  const fetchers = createFetchers(config, { client, cache, addresses: options.addresses });
  const memos = createMemos();
  const fetchService = createFetchService({
    config,
    cache,
    router: fetchers.router,
    select: fetchers.conversions.select,
    memos,
    clock: options.clock,
  });
  const estimate = createEstimator({ client, fetchService, extract: fetchers.conversions.extract });
  const search = createSearchService({ provider: createSearchProvider(config), fetchService });
  return {
    cache,
    memos,
    /** The guarded HTTP client and robots.txt: a crawl's sitemaps and webhooks go through them. */
    client,
    robots: fetchers.robots,
    fetchService,
    estimate,
    search,
    /** Starts EXTRACT_WORKERS_WARM extraction threads now (a server, before its first request); others on first use. */
    warm: () => fetchers.conversions.warm(config.EXTRACT_WORKERS_WARM),
    async close() {
      await Promise.allSettled([fetchers.close(), client.close(), cache.close()]);
    },
  };
}

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
  const pipeline = createPipeline(config);
  return { mode: 'local', operations: createLocalOperations(pipeline), close: () => pipeline.close() };
}
