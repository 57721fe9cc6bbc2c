// The MCP server on stdin/stdout (`fetchdown mcp`, `npm run mcp`): stdout carries nothing but the protocol, every log
// line goes to stderr, and the process ends when the client closes stdin.
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from '../config.js';
import type { DeferredHandle } from '../operations/deferred.js';
import { createMcpServer } from './server.js';

function log(line: string): void {
  process.stderr.write(`fetchdown mcp: ${line}\n`);
}

/** A stray console.log in any dependency would corrupt the protocol stream; send it to stderr instead. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);
  Object.assign(globalThis.console, { log: toStderr, info: toStderr, debug: toStderr });
}

export async function runStdioServer(config: Config, handle: DeferredHandle): Promise<void> {
  keepStdoutForProtocol();
  const server = createMcpServer(handle.operations, {
    defaultMaxTokens: config.MCP_DEFAULT_MAX_TOKENS,
    defaultMaxChars: config.MCP_DEFAULT_MAX_CHARS,
    // The pipeline loads once the client has its answers to initialize and tools/list, which clients send at start
    // and give up on if they are slow; a tool call before that loads it itself.
    onToolsListed: () => void handle.load(),
    logError: (error) =>
      log(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });
  // Once the client has gone (stdin closed) or the process is told to stop, nobody will read the answers of calls still
  // running: they are abandoned, not awaited, so the process ends at once rather than when a page that does not answer
  // reaches the fetch deadline (FETCH_TIMEOUT_MS) or the browser has closed gracefully. The pipeline is not closed
  // either: the cache writes as it goes (SQLite synchronously), and Playwright kills the Chromium it launched, and
  // removes its profile, when this process exits.
  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    log(`closing (${reason})`);
    await server.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await server.connect(new StdioServerTransport());
  // Remote exactly when createOperations makes it so (loadConfig refuses one of the two variables without the other).
  const where = config.FETCHDOWN_API_URL
    ? `remote mode, calling ${config.FETCHDOWN_API_URL}`
    : `local mode, fetching in this process; search: ${config.SEARCH_PROVIDER ?? 'not configured'}`;
  log(`ready on stdio (${where}); data directory: ${resolve(config.DATA_DIR)}`);
}
