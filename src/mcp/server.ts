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
import type { CrawlRequest, CrawlStatusArgs, MapRequest } from '../contract/crawl.js';
import type { BatchFetchRequest, FetchRequest, FetchResult, SearchRequest } from '../contract/fetch.js';
import type { AgentOperations } from '../operations/agent.js';
import { describeFailure, RemoteApiError } from '../operations/failure.js';
import { fitLinks, renderCrawlStarted, renderCrawlStatus, renderMap, summarizeCrawl } from './crawl-results.js';
import { applyDefaultBudget, fitOutlines, type DefaultBudget } from './default-budget.js';
import { pageLinks } from './pages.js';
import { registerResources } from './resources.js';
import { screenshotLinks } from './screenshots.js';
import { renderBatch, renderEstimate, renderFetch, renderSearch } from './render.js';
import { TOOLS, findTool, listTools, type ToolDefinition, type ToolName } from '../contract/tools.js';
import { validateInput } from '../contract/validate.js';

const INSTRUCTIONS =
  'Fetchdown turns web pages into clean Markdown with exact token counts. Use fetch_url for ' +
  'one URL, fetch_multiple for several, search_and_fetch when you have a question but no ' +
  'URL, and estimate_tokens to check a page size before fetching it. Cap large pages with ' +
  "max_tokens and read on with next_cursor. map_site lists a site's URLs; crawl_site reads " +
  'many pages of a site as a job, which crawl_status follows.';

/**
 * A tool: the operation it runs (given the default budget, which the crawl tools fit their results to), and the text a
 * model reads of its result (sent as structuredContent too).
 */
interface Handler<T extends object = object> {
  run(operations: AgentOperations, args: unknown, budget: DefaultBudget): Promise<T>;
  render(result: T): string;
}

const handler = <T extends object>(h: Handler<T>) => h as Handler;

const HANDLERS: Record<ToolName, Handler> = {
  fetch_url: handler({ run: (ops, args) => ops.fetchUrl(args as FetchRequest), render: renderFetch }),
  estimate_tokens: handler({ run: (ops, args) => ops.estimate(args as { url: string }), render: renderEstimate }),
  fetch_multiple: handler({ run: (ops, args) => ops.fetchMultiple(args as BatchFetchRequest), render: renderBatch }),
  search_and_fetch: handler({ run: (ops, args) => ops.searchAndFetch(args as SearchRequest), render: renderSearch }),
  map_site: handler({
    run: async (ops, args, budget) => fitLinks(await ops.mapSite(args as MapRequest), budget.chars),
    render: renderMap,
  }),
  crawl_site: handler({ run: (ops, args) => ops.startCrawl(args as CrawlRequest), render: renderCrawlStarted }),
  crawl_status: handler({
    run: async (ops, args, budget) => summarizeCrawl(await ops.crawlStatus(args as CrawlStatusArgs), budget.chars),
    render: renderCrawlStatus,
  }),
};

/** A failed call as a tool result: the summary, then the HTTP error body itself. */
export function toToolError(error: unknown): CallToolResult {
  const { status, body, summary } = describeFailure(error);
  return { isError: true, content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify({ status, ...body })}` }] };
}

export interface McpServerOptions {
  /** Told about failures that were not foreseen (they reach the model as an opaque internal error). */
  logError?: (error: unknown) => void;
  /** The token budget when the caller sets no size (MCP_DEFAULT_MAX_TOKENS); unset or 0: none. */
  defaultMaxTokens?: number;
  /** The characters of a whole result when the caller sets no size (MCP_DEFAULT_MAX_CHARS); unset or 0: none. */
  defaultMaxChars?: number;
  /** Told each time the tool list has been answered (the stdio server loads its pipeline then). */
  onToolsListed?: () => void;
}

export function createMcpServer(operations: AgentOperations, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'fetchdown', title: 'Fetchdown', version: API_VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const tools = listTools({ defaultMaxChars: options.defaultMaxChars });
  const budget: DefaultBudget = { tokens: options.defaultMaxTokens ?? 0, chars: options.defaultMaxChars ?? 0 };

  server.setRequestHandler(ListToolsRequestSchema, () => {
    // After this turn of the event loop, so the answer is written before whatever the listener starts.
    if (options.onToolsListed) setImmediate(options.onToolsListed);
    return { tools };
  });

  /** Tells options.logError of a failure that was not foreseen (a 500 of this process, not of a remote API's). */
  const logUnforeseen = (error: unknown) => {
    if (!(error instanceof RemoteApiError) && renderError(error).status === 500) options.logError?.(error);
  };

  /** A tool's result for the caller's arguments, validated and sized as every call is; throws its failure. */
  async function runTool(tool: ToolDefinition, given: Record<string, unknown>): Promise<object> {
    const args = validateInput<Record<string, unknown>>(tool.inputSchema, given, tool.location);
    const limit = applyDefaultBudget(tool.name, given, args, budget);
    const result = await HANDLERS[tool.name].run(operations, args, budget);
    return limit === null ? result : fitOutlines(result, limit);
  }

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = findTool(request.params.name);
    // An unknown tool is a protocol error (the client asked for something that is not listed), not a tool result.
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool "${request.params.name}"; the tools are ${TOOLS.map((t) => t.name).join(', ')}`,
      );
    const given = request.params.arguments ?? {};
    try {
      const structured = await runTool(tool, given);
      return {
        content: [
          { type: 'text', text: HANDLERS[tool.name].render(structured) },
          ...screenshotLinks(structured),
          ...pageLinks(tool.name, given, structured),
        ],
        structuredContent: structured as Record<string, unknown>,
      };
    } catch (error) {
      logUnforeseen(error);
      return toToolError(error);
    }
  });

  const fetchUrl = findTool('fetch_url')!;
  registerResources(server, {
    operations,
    fetchPage: (args) => runTool(fetchUrl, args) as Promise<FetchResult>,
    logUnforeseen,
  });

  return server;
}
