// resources/read and the resource lists: one router by URI, to the pages (pages.ts) or the screenshots
// (screenshots.ts). Nothing is listed: a page is any URL (the template says how to name one), a trimmed page's rest is
// reached through the link its result carries, and a screenshot through its fetch's; listing the cache would show a
// caller other callers' pages.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentOperations } from '../operations/agent.js';
import { describeFailure } from '../operations/failure.js';
import { isPageUri, PAGE_TEMPLATES, readPage, type FetchPage } from './pages.js';
import { readScreenshot } from './screenshots.js';

/**
 * A failed read as the protocol's error: what the caller can mend (a cursor that expired, a URL that is not one, a
 * page that does not exist) is InvalidParams with the HTTP API's detail; the rest an internal error with its summary.
 */
function toMcpError(error: unknown): McpError {
  const { status, summary } = describeFailure(error);
  return new McpError(status === 422 || status === 404 ? ErrorCode.InvalidParams : ErrorCode.InternalError, summary);
}

export function registerResources(
  server: Server,
  deps: { operations: AgentOperations; fetchPage: FetchPage; logUnforeseen: (error: unknown) => void },
): void {
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: PAGE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
    if (!isPageUri(uri)) return readScreenshot(deps.operations, uri);
    try {
      return await readPage(deps.fetchPage, uri);
    } catch (error) {
      deps.logUnforeseen(error);
      throw toMcpError(error);
    }
  });
}
