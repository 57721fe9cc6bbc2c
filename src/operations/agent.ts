// The four operations an agent surface offers (MCP tools, the CLI), behind one interface with two implementations:
// local runs them in this process for one caller, remote calls a Fetchdown API with a key (remote.ts).
import type {
  BatchFetchRequest,
  BatchResult,
  EstimateResult,
  FetchRequest,
  FetchResult,
  SearchRequest,
  SearchResult,
} from '../contract/fetch.js';
import { inBody, inQuery } from '../errors.js';
import type { Caller, Operations } from './index.js';

/** Arguments are the contract's request bodies after validation and defaults, so both modes take them as they are. */
export interface AgentOperations {
  fetchUrl(args: FetchRequest): Promise<FetchResult>;
  estimate(args: { url: string }): Promise<EstimateResult>;
  fetchMultiple(args: BatchFetchRequest): Promise<BatchResult>;
  searchAndFetch(args: SearchRequest): Promise<SearchResult>;
}

/** Remote when FETCHDOWN_API_URL and FETCHDOWN_API_KEY are set (loadConfig refuses one without the other). */
export function agentMode(config: { FETCHDOWN_API_URL?: string; FETCHDOWN_API_KEY?: string }): 'local' | 'remote' {
  return config.FETCHDOWN_API_URL && config.FETCHDOWN_API_KEY ? 'remote' : 'local';
}

/** Agent operations chosen by an entry point (local or remote), and how to release what they hold. */
export interface AgentHandle {
  mode: 'local' | 'remote';
  operations: AgentOperations;
  close(): Promise<void>;
}

/**
 * The operations run in this process for one caller: the same pipeline, cache, guard and meter as the HTTP routes,
 * and their 422s at the HTTP API's locations (`body.max_tokens`, `query.url`), so that an agent's error reads the
 * same in local and remote mode.
 */
export function forCaller(
  operations: Pick<Operations, 'fetchUrl' | 'estimate' | 'fetchMany' | 'searchAndFetch'>,
  caller: Caller,
): AgentOperations {
  return {
    fetchUrl: (args) => operations.fetchUrl(caller, args, inBody),
    estimate: (args) => operations.estimate(caller, args.url, inQuery),
    fetchMultiple: (args) => operations.fetchMany(caller, args, inBody),
    searchAndFetch: (args) => operations.searchAndFetch(caller, args, inBody),
  };
}
