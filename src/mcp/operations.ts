// The four operations every agent surface offers (MCP tools, CLI), behind one interface with two implementations:
// local runs the pipeline in this process, remote calls a Fetchdown API with a key (so usage is billed to it).
import type { Static } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { BatchFetchRequest, BatchResult, EstimateResult, FetchRequest, FetchResult, SearchRequest, SearchResult } from '../http/schemas.js';
import { createServices } from '../services/index.js';
import { createLocalOperations } from './local-operations.js';
import { createRemoteOperations } from './remote-operations.js';

/** Arguments are the HTTP request bodies after validation and defaults, so both modes take them as is. */
export interface Operations {
  fetchUrl(args: FetchRequest): Promise<FetchResult>;
  estimate(args: { url: string }): Promise<Static<typeof EstimateResult>>;
  fetchMultiple(args: BatchFetchRequest): Promise<Static<typeof BatchResult>>;
  searchAndFetch(args: SearchRequest): Promise<SearchResult>;
}

export interface OperationsHandle {
  mode: 'local' | 'remote';
  operations: Operations;
  close(): Promise<void>;
}

/** Remote when FETCHDOWN_API_URL and FETCHDOWN_API_KEY are set (loadConfig refuses one without the other), else local. */
export function createOperations(config: Config): OperationsHandle {
  if (config.FETCHDOWN_API_URL && config.FETCHDOWN_API_KEY) {
    const operations = createRemoteOperations({
      baseUrl: config.FETCHDOWN_API_URL,
      apiKey: config.FETCHDOWN_API_KEY,
      // A search is a provider call plus a round of fetches, each of which may use the whole fetch deadline.
      timeoutMs: config.FETCH_TIMEOUT_MS * 3,
    });
    return { mode: 'remote', operations, close: async () => {} };
  }
  const services = createServices(config);
  return { mode: 'local', operations: createLocalOperations(services), close: () => services.close() };
}
