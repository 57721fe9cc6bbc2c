// The operations of the fetch pipeline alone (fetch, batch, estimate, cache, search): what the CLI and the stdio MCP
// server run in-process. Apart from index.ts, which adds accounts, billing and limits: loading this loads none of them.
import type { Locate } from '../errors.js';
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import type { SearchService } from '../services/search.js';
import { fetchMany } from './fetch-many.js';
import { createFetchOperations } from './fetching.js';
import { ownerOf, type Caller, type MeterFor } from './meter.js';
import { createSearchOperations } from './searching.js';

/** The operations of the fetch pipeline (fetch, batch, estimate, cache, search), each caller metered by `meterFor`. */
export function createPipelineOperations(deps: {
  fetchService: FetchService;
  estimate: Estimator;
  search: SearchService;
  meterFor: MeterFor;
}) {
  return {
    ...createFetchOperations(deps),
    fetchMany: (caller: Caller, input: Parameters<typeof fetchMany>[2], locate: Locate) =>
      fetchMany(deps.fetchService, deps.meterFor(caller), input, locate, ownerOf(caller)),
    ...createSearchOperations(deps),
  };
}
