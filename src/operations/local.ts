// The agent operations of the one in-process caller (the CLI, the stdio MCP server): the same fetch, batch and search
// operations as every surface's, never metered.
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import type { SearchService } from '../services/search.js';
import { forCaller, type AgentOperations } from './agent.js';
import { createPipelineOperations } from './pipeline.js';
import { meterLocal } from './meter.js';

/**
 * Built without the account store: this caller is never metered, and the store's modules (Kysely, the database
 * drivers) would only slow the start.
 */
export function createLocalOperations(deps: {
  fetchService: FetchService;
  estimate: Estimator;
  search: SearchService;
}): AgentOperations {
  return forCaller(createPipelineOperations({ ...deps, meterFor: meterLocal }), { kind: 'local' });
}
