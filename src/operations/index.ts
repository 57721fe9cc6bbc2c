// The one set of operations every surface calls: the HTTP routes, the MCP tools and the CLI. Inputs and results are
// the contract's shapes; each operation meters its caller (src/operations/meter.ts).
import type { Accounts } from '../accounts/index.js';
import type { Billing } from '../billing/index.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { PlanKey } from '../store/types.js';
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import { checkReadiness } from '../services/readiness.js';
import type { SearchService } from '../services/search.js';
import { createAccountOperations } from './accounts.js';
import { createBillingOperations } from './billing.js';
import { createLimits, type LimitsConfig } from './limits.js';
import { createMetering, type HostMemo } from './meter.js';
import { createPipelineOperations } from './pipeline.js';
import { createCrawlOperations } from './crawling.js';
import { createCrawlWorker, type CrawlWorkerDeps } from './crawl-worker.js';
import { createOAuthOperations } from './oauth.js';
import type { OAuth } from '../oauth/index.js';

export type { Caller } from './meter.js';
export { createPipelineOperations } from './pipeline.js';

export interface OperationsDeps {
  fetchService: FetchService;
  estimate: Estimator;
  search: SearchService;
  accounts: Accounts;
  billing: Billing;
  rateLimiter: RateLimiter;
  /** The rate limits' settings. */
  config: LimitsConfig;
  /** What GET /ready probes, by name: the account database and the cache. */
  probes: Record<string, { ping(): Promise<void> }>;
  publicBaseUrl: string;
  /** The memo of URLs' hosts for the ledger (pipeline.ts owns it with the other memos). */
  hostOf: HostMemo;
  /** Told about ledger writes that failed after the work was done (the caller still gets the result). */
  onLedgerError(error: unknown, context: string): void;
  /** Crawls' state, queue, host gate, and what their pages are read and kept with. */
  crawl: Omit<CrawlWorkerDeps, 'fetchService' | 'meterFor' | 'accounts'>;
  /** The authorization server of the remote MCP endpoint. */
  oauth: OAuth;
}

export function createOperations(deps: OperationsDeps) {
  const meterFor = createMetering({
    credits: deps.accounts.credits,
    anonymous: deps.accounts.anonymous,
    publicBaseUrl: deps.publicBaseUrl,
    hostOf: deps.hostOf,
    onError: deps.onLedgerError,
  });
  const crawlWorker = createCrawlWorker({
    ...deps.crawl,
    fetchService: deps.fetchService,
    meterFor,
    accounts: deps.accounts,
  });
  return {
    ...createPipelineOperations({ ...deps, meterFor }),
    crawling: createCrawlOperations({
      crawls: deps.crawl.crawls,
      worker: crawlWorker,
      cache: deps.crawl.cache,
      client: deps.crawl.client,
      fetchService: deps.fetchService,
      meterFor,
      publicBaseUrl: deps.publicBaseUrl,
      maxPages: (plan) => deps.accounts.plans[plan as PlanKey].crawlPages,
      retentionMs: deps.crawl.settings.retentionMs,
      accountMaxBytes: deps.crawl.settings.accountMaxBytes,
      now: deps.crawl.now,
    }),
    /**
     * Reads crawls' jobs in this process (the embedded server, or `fetchdown worker`), once the pages of unfinished
     * crawls that wait for a job are queued again. `options.releaseClaims`: this process is the only one that reads
     * (the embedded default), so claims left in the store are of a run that ended.
     */
    async workCrawls(concurrency: number, options: { releaseClaims?: boolean } = {}) {
      await deps.crawl.crawls.ready();
      await crawlWorker.resume(options.releaseClaims ?? false);
      deps.crawl.queue.work((job) => crawlWorker.handle(job), concurrency);
    },
    accounts: createAccountOperations({ accounts: deps.accounts }),
    oauth: createOAuthOperations(deps.oauth),
    billing: createBillingOperations({ billing: deps.billing }),
    /** Whether this process can serve: each probe answers within its deadline. */
    readiness: () => checkReadiness(deps.probes),
    limits: createLimits({ rateLimiter: deps.rateLimiter, config: deps.config, plans: deps.accounts.plans }),
  };
}

export type Operations = ReturnType<typeof createOperations>;
