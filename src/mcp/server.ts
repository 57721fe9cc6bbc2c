// createMcpServer(operations): the Fetchdown MCP server, independent of transport (stdio and POST /mcp only mount it).
// Built on the SDK's low-level Server rather than McpServer on purpose: tools keep the HTTP API's JSON Schemas and
// its validation, so limits and error details are the same on both surfaces instead of being copied into zod.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../version.js';
import { renderError } from '../errors.js';
import type { BatchFetchRequest, FetchRequest, SearchRequest } from '../contract/fetch.js';
import type { AgentOperations } from '../operations/agent.js';
import { describeFailure, RemoteApiError } from '../operations/failure.js';
import { applyDefaultBudget } from './default-budget.js';
import { renderBatch, renderEstimate, renderFetch, renderSearch } from './render.js';
import { TOOLS, findTool, listTools, type ToolName } from '../contract/tools.js';
import { validateInput } from '../contract/validate.js';

const INSTRUCTIONS =
  'Fetchdown turns web pages into clean Markdown with exact token counts. Use fetch_url for ' +
  'one URL, fetch_multiple for several, search_and_fetch when you have a question but no ' +
  'URL, and estimate_tokens to check a page size before fetching it. Cap large pages with ' +
  'max_tokens and read on with next_cursor.';

type Handler = (operations: AgentOperations, args: unknown) => Promise<{ structured: object; text: string }>;

const HANDLERS: Record<ToolName, Handler> = {
  fetch_url: async (ops, args) => {
    const page = await ops.fetchUrl(args as FetchRequest);
    return { structured: page, text: renderFetch(page) };
  },
  estimate_tokens: async (ops, args) => {
    const estimate = await ops.estimate(args as { url: string });
    return { structured: estimate, text: renderEstimate(estimate) };
  },
  fetch_multiple: async (ops, args) => {
    const batch = await ops.fetchMultiple(args as BatchFetchRequest);
    return { structured: batch, text: renderBatch(batch) };
  },
  search_and_fetch: async (ops, args) => {
    const search = await ops.searchAndFetch(args as SearchRequest);
    return { structured: search, text: renderSearch(search) };
  },
};

/** A failed call as a tool result: the summary, then the HTTP error body itself. */
export function toToolError(error: unknown): CallToolResult {
  const { status, body, summary } = describeFailure(error);
  return { isError: true, content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify({ status, ...body })}` }] };
}

export interface McpServerOptions {
  /** Told about failures that were not foreseen (they reach the model as an opaque internal error). */
  logError?: (error: unknown) => void;
  /** The token budget when the caller gives none (MCP_DEFAULT_MAX_TOKENS); unset or 0: none. */
  defaultMaxTokens?: number;
  /** Told each time the tool list has been answered (the stdio server loads its pipeline then). */
  onToolsListed?: () => void;
}

export function createMcpServer(operations: AgentOperations, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'fetchdown', title: 'Fetchdown', version: API_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const tools = listTools();

  server.setRequestHandler(ListToolsRequestSchema, () => {
    // After this turn of the event loop, so the answer is written before whatever the listener starts.
    if (options.onToolsListed) setImmediate(options.onToolsListed);
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = findTool(request.params.name);
    // An unknown tool is a protocol error (the client asked for something that is not listed), not a tool result.
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool "${request.params.name}"; the tools are ${TOOLS.map((t) => t.name).join(', ')}`,
      );
    try {
      const args = validateInput<Record<string, unknown>>(tool.inputSchema, request.params.arguments, tool.location);
      applyDefaultBudget(tool.name, request.params.arguments ?? {}, args, options.defaultMaxTokens ?? 0);
      const { structured, text } = await HANDLERS[tool.name](operations, args);
      return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
    } catch (error) {
      const result = toToolError(error);
      if (!(error instanceof RemoteApiError) && renderError(error).status === 500) options.logError?.(error);
      return result;
    }
  });

  return server;
}
