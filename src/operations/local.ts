// The agent operations of the one in-process caller (the CLI, the stdio MCP server): the same fetch, batch and search
// operations as every surface's, never metered. Maps and crawls need a server (its account store and job queue).
import { AppError } from '../errors.js';
import type { Estimator } from '../services/estimate.js';
import type { FetchService } from '../services/fetch-service.js';
import type { SearchService } from '../services/search.js';
import { fetchingFor, type AgentOperations } from './agent.js';
import { createPipelineOperations } from './pipeline.js';
import { meterLocal } from './meter.js';

async function needsServer(): Promise<never> {
  throw new AppError(
    'key_required',
    'maps and crawls run on a Fetchdown server, billed to an API key; this process runs in local mode',
    { retryHint: 'set FETCHDOWN_API_URL (the server) and FETCHDOWN_API_KEY (your API key of it)' },
  );
}

/**
 * Built without the account store: this caller is never metered, and the store's modules (Kysely, the database
 * drivers) would only slow the start.
 */
export function createLocalOperations(deps: {
  fetchService: FetchService;
  estimate: Estimator;
  search: SearchService;
}): AgentOperations {
  return {
    ...fetchingFor(createPipelineOperations({ ...deps, meterFor: meterLocal }), { kind: 'local' }),
    mapSite: needsServer,
    startCrawl: needsServer,
    crawlStatus: needsServer,
    cancelCrawl: needsServer,
  };
}
