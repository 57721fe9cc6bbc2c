// Builds every service from the config, once per process; the HTTP layer and tests receive this object.
import { createAccountServices, type Clock } from '../accounts/index.js';
import { createBilling } from '../billing/index.js';
import { createCache } from '../cache/index.js';
import type { Config } from '../config.js';
import { createFetchers } from '../fetchers/index.js';
import { createSafeClient } from '../net/safe-client.js';
import { createSearchProvider } from '../search/index.js';
import { createEstimator } from './estimate.js';
import { createFetchService } from './fetch-service.js';
import { createSearchService } from './search.js';

/** deps.clock: the accounts service's time (months, expiries); the system clock unless a caller passes its own. */
export function createServices(config: Config, deps: { clock?: Clock } = {}) {
  const cache = createCache(config);
  const client = createSafeClient({
    allowPrivateNetworks: config.FETCH_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: config.FETCH_TIMEOUT_MS,
    maxBytes: config.FETCH_MAX_BYTES,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
    userAgent: config.USER_AGENT,
  });
  const fetchers = createFetchers(config, { client, cache });
  const fetchService = createFetchService({ config, cache, router: fetchers.router });
  const estimate = createEstimator({ client, fetchService });
  const search = createSearchService({ provider: createSearchProvider(config), fetchService });
  const accountServices = createAccountServices(config, deps);
  return {
    config,
    cache,
    fetchService,
    estimate,
    search,
    store: accountServices.store,
    accounts: accountServices.accounts,
    rateLimiter: accountServices.rateLimiter,
    billing: createBilling(config, { store: accountServices.store, now: () => accountServices.accounts.clock.now() }),
    async close() {
      await Promise.allSettled([fetchers.close(), client.close(), cache.close(), accountServices.close()]);
    },
  };
}

export type Services = ReturnType<typeof createServices>;
