// Agent operations whose modules load after the MCP server has answered `initialize` and `tools/list`: the pipeline's
// imports (DOM, tokenizer, cache clients) take most of a second of CPU, and desktop MCP clients give up on a server
// that is slow to start.
import type { AgentHandle } from './agent.js';

export interface DeferredHandle extends AgentHandle {
  /** Loads the operations (once); every call of `operations` waits for this. */
  load(): Promise<AgentHandle>;
}

export function deferOperations(mode: AgentHandle['mode'], create: () => Promise<AgentHandle>): DeferredHandle {
  let loading: Promise<AgentHandle> | undefined;
  const load = () => (loading ??= create());
  return {
    mode,
    operations: {
      fetchUrl: async (args) => (await load()).operations.fetchUrl(args),
      estimate: async (args) => (await load()).operations.estimate(args),
      fetchMultiple: async (args) => (await load()).operations.fetchMultiple(args),
      searchAndFetch: async (args) => (await load()).operations.searchAndFetch(args),
      mapSite: async (args) => (await load()).operations.mapSite(args),
      startCrawl: async (args) => (await load()).operations.startCrawl(args),
      crawlStatus: async (args) => (await load()).operations.crawlStatus(args),
      cancelCrawl: async (args) => (await load()).operations.cancelCrawl(args),
      screenshot: async (file) => (await load()).operations.screenshot(file),
    },
    load,
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
