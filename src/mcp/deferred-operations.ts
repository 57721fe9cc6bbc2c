// Operations whose modules load after the MCP server has answered `initialize`: the pipeline's imports (DOM,
// tokenizer, database and cache clients) take most of a second of CPU, and desktop MCP clients give up on a server
// that is slow to start.
import type { Operations, OperationsHandle } from './operations.js';

export interface DeferredOperations {
  operations: Operations;
  /** Loads the operations (once); every call of `operations` waits for this. */
  load(): Promise<OperationsHandle>;
  /** Closes them if they were loaded. */
  close(): Promise<void>;
}

export function deferOperations(create: () => Promise<OperationsHandle>): DeferredOperations {
  let loading: Promise<OperationsHandle> | undefined;
  const load = () => (loading ??= create());
  return {
    operations: {
      fetchUrl: async (args) => (await load()).operations.fetchUrl(args),
      estimate: async (args) => (await load()).operations.estimate(args),
      fetchMultiple: async (args) => (await load()).operations.fetchMultiple(args),
      searchAndFetch: async (args) => (await load()).operations.searchAndFetch(args),
    },
    load,
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}
