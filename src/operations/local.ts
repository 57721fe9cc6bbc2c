// The agent operations of the one in-process caller (the CLI, the stdio MCP server): the same fetch, batch and search
// operations as every surface's, never metered.
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import type { SearchService } from '../services/search.js';
import type { AgentOperations } from './agent.js';
import { fetchMany } from './fetch-many.js';
import { createFetchOperations } from './fetching.js';
import type { Caller } from './index.js';
import { meterLocal } from './meter.js';
import { createSearchOperations } from './searching.js';

/**
 * Built without the account store: this caller is never metered, and the store's modules (Kysely, the database
 * drivers) would only slow the start.
 */
export function createLocalOperations(deps: {
  fetchService: FetchService;
  estimate: Estimator;
  search: SearchService;
}): AgentOperations {
  const caller: Caller = { kind: 'local' };
  const fetching = createFetchOperations({
    fetchService: deps.fetchService,
    estimate: deps.estimate,
    meterFor: meterLocal,
  });
  const searching = createSearchOperations({ search: deps.search, meterFor: meterLocal });
  return {
    fetchUrl: (args) => fetching.fetchUrl(caller, args),
    estimate: (args) => fetching.estimate(caller, args.url),
    fetchMultiple: (args) => fetchMany(deps.fetchService, meterLocal(caller), args),
    searchAndFetch: (args) => searching.searchAndFetch(caller, args),
  };
}
