// The operations an agent surface offers (MCP tools, the CLI), behind one interface with two implementations: local
// runs them in this process for one caller, remote calls a Fetchdown API with a key (remote.ts).
import type {
  CrawlCreated,
  CrawlRequest,
  CrawlStatus,
  CrawlStatusArgs,
  MapRequest,
  MapResult,
} from '../contract/crawl.js';
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
  mapSite(args: MapRequest): Promise<MapResult>;
  startCrawl(args: CrawlRequest): Promise<CrawlCreated>;
  crawlStatus(args: CrawlStatusArgs): Promise<CrawlStatus>;
  /** Stops a crawl: nothing new starts, pages being read finish, nothing more is charged. */
  cancelCrawl(args: { id: string }): Promise<CrawlStatus>;
  /** A screenshot this caller took (`<id>.<format>`), or null. */
  screenshot(file: string): Promise<{ type: string; bytes: Buffer } | null>;
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

type FetchOperations = Pick<Operations, 'fetchUrl' | 'estimate' | 'fetchMany' | 'searchAndFetch' | 'screenshot'>;

/**
 * The fetch operations run in this process for one caller: the same pipeline, cache, guard and meter as the HTTP
 * routes, and their 422s at the HTTP API's locations (`body.max_tokens`, `query.url`), so that an agent's error reads
 * the same in local and remote mode.
 */
export function fetchingFor(operations: FetchOperations, caller: Caller) {
  return {
    fetchUrl: (args: FetchRequest) => operations.fetchUrl(caller, args, inBody),
    estimate: (args: { url: string }) => operations.estimate(caller, args.url, inQuery),
    fetchMultiple: (args: BatchFetchRequest) => operations.fetchMany(caller, args, inBody),
    searchAndFetch: (args: SearchRequest) => operations.searchAndFetch(caller, args, inBody),
    screenshot: (file: string) => operations.screenshot(caller, file).catch(() => null),
  };
}

/** Every agent operation for one caller of the HTTP app (POST /mcp): the fetch operations and the crawl ones. */
export function forCaller(operations: FetchOperations & Pick<Operations, 'crawling'>, caller: Caller): AgentOperations {
  const { crawling } = operations;
  return {
    ...fetchingFor(operations, caller),
    mapSite: (args) => crawling.map(caller, args, inBody),
    startCrawl: (args) => crawling.startCrawl(caller, args, inBody),
    crawlStatus: ({ id, ...query }) => crawling.crawlStatus(caller, id, query, inQuery),
    cancelCrawl: ({ id }) => crawling.cancelCrawl(caller, id),
  };
}
