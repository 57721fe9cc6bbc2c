// The MCP tools as data: names, descriptions written for a model choosing a tool, and the HTTP API's own schemas (same
// limits, same defaults). The MCP server, /spec and /.well-known/mcp.json all read this one list.
import { Type, type TSchema } from '@sinclair/typebox';
import {
  CrawlCreated,
  CrawlRequest,
  CrawlStatusArgs,
  CrawlStatusToolResult,
  MapRequest,
  MapToolResult,
} from './crawl.js';
import {
  BatchFetchRequest,
  BatchResult,
  EstimateResult,
  FetchRequest,
  FetchResult,
  SearchRequest,
  SearchResult,
  UrlQuery,
} from './fetch.js';
import { toJsonSchema, toMcpInputSchema } from './mcp-input-schema.js';

export type ToolName =
  'fetch_url' | 'estimate_tokens' | 'fetch_multiple' | 'search_and_fetch' | 'map_site' | 'crawl_site' | 'crawl_status';

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: TSchema;
  outputSchema: TSchema;
  /** Where the HTTP API reads these arguments from, so validation errors carry the same `loc` as a 422. */
  location: 'body' | 'querystring';
  annotations: { readOnlyHint: boolean; openWorldHint: true; idempotentHint: boolean; destructiveHint: false };
  /** Whether its results hold pages (or a site's links), sized by the caller's budget or the default one. */
  holdsPages: boolean;
}

const annotations = (idempotent: boolean, readOnly = true) =>
  ({ readOnlyHint: readOnly, openWorldHint: true, idempotentHint: idempotent, destructiveHint: false }) as const;

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'fetch_url',
    title: 'Fetch a URL as Markdown',
    description:
      'Read a web page, PDF or document as clean Markdown with its token count; JavaScript ' +
      'pages are rendered. Capped at the default budget (10,000 tokens unless configured) without max_tokens or ' +
      'max_chars; a trimmed result lists the cut sections and a next_cursor: call again with url and cursor to ' +
      'read on. query: passages answering it first. links/images "none": fewer tokens. include/exclude: CSS ' +
      'selectors. max_age: seconds. pages: PDF pages ("1-5"). wait_for, actions, headers: pages behind clicks or ' +
      'a login.',
    inputSchema: FetchRequest,
    outputSchema: FetchResult,
    location: 'body',
    annotations: annotations(true),
    holdsPages: true,
  },
  {
    name: 'estimate_tokens',
    title: 'Estimate the tokens of a URL',
    description:
      "Estimate a URL's tokens without fetching it: exact when cached, else from its size. Use it before " +
      'fetch_url when a page may not fit; confident=false: fetch with max_tokens instead.',
    inputSchema: Type.Object(UrlQuery.properties, { additionalProperties: false }),
    outputSchema: EstimateResult,
    location: 'querystring',
    annotations: annotations(true),
    holdsPages: false,
  },
  {
    name: 'fetch_multiple',
    title: 'Fetch several URLs at once',
    description:
      'Fetch 1 to 20 known URLs at once, with the options of fetch_url, each page sized by max_tokens_each or ' +
      'sharing the default budget (10,000 tokens unless configured). A URL that fails gets its own error.',
    inputSchema: BatchFetchRequest,
    outputSchema: BatchResult,
    location: 'body',
    annotations: annotations(true),
    holdsPages: true,
  },
  {
    name: 'search_and_fetch',
    title: 'Search the web and read the results',
    description:
      'Search the web and read the top num_results pages, each trimmed to the passages matching the query, ' +
      'within max_tokens_each and the default budget (10,000 tokens unless configured). For a question without ' +
      'a URL; read on with fetch_url and next_cursor.',
    inputSchema: SearchRequest,
    outputSchema: SearchResult,
    location: 'body',
    // The same query can return other pages tomorrow.
    annotations: annotations(false),
    holdsPages: true,
  },
  {
    name: 'map_site',
    title: "List a site's URLs",
    description:
      "List a site's URLs without reading them (sitemaps, llms.txt, links), ranked by search if given; " +
      'include_paths/exclude_paths: regular expressions. To choose pages for fetch_url or crawl_site.',
    inputSchema: MapRequest,
    outputSchema: MapToolResult,
    location: 'body',
    annotations: annotations(true),
    holdsPages: true,
  },
  {
    name: 'crawl_site',
    title: 'Start a crawl of a site',
    description:
      'Start a crawl of up to limit pages of a site (sitemaps and links, max_depth from url), each billed as a ' +
      'fetch. Answers at once with an id for crawl_status. For a few known URLs, use fetch_multiple.',
    inputSchema: CrawlRequest,
    outputSchema: CrawlCreated,
    location: 'body',
    // Each call starts another crawl, billed to the account.
    annotations: annotations(false, false),
    holdsPages: false,
  },
  {
    name: 'crawl_status',
    title: "A crawl's progress and pages",
    description:
      "A crawl's status, counts and credits, and up to limit of its pages (title, URL, start of the Markdown). " +
      'Pass next_cursor as cursor for more; call again while queued or running.',
    inputSchema: CrawlStatusArgs,
    outputSchema: CrawlStatusToolResult,
    location: 'querystring',
    annotations: annotations(true),
    holdsPages: true,
  },
];

export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((tool) => tool.name === name);
}

/**
 * Claude Code writes a result of more than 50,000 characters to a file and shows the model a preview of it, unless
 * the tool's `_meta["anthropic/maxResultSizeChars"]` allows more (up to 500,000). Results within the default budget
 * are shorter; a caller who sets its own size is shown results up to about Claude Code's own token limit
 * (MAX_MCP_OUTPUT_TOKENS, 25,000 tokens: about 100,000 characters of prose), not a file, or up to the default
 * character budget when an operator set it higher.
 */
const INLINE_RESULT_CHARS = 100_000;

/** The tool list as MCP publishes it (tools/list); /.well-known/mcp.json embeds the same list. */
export function listTools(options: { defaultMaxChars?: number } = {}) {
  const inline = Math.max(INLINE_RESULT_CHARS, options.defaultMaxChars ?? 0);
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toMcpInputSchema(tool.inputSchema) as {
      type: 'object';
      [key: string]: unknown;
    },
    outputSchema: toJsonSchema(tool.outputSchema) as { type: 'object'; [key: string]: unknown },
    annotations: { title: tool.title, ...tool.annotations },
    ...(tool.holdsPages && { _meta: { 'anthropic/maxResultSizeChars': inline } }),
  }));
}
