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
  withOptionalDefaults,
} from './fetch.js';

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
      'Fetch one web page and return its main content as clean Markdown (navigation, cookie ' +
      'banners, ads and footers removed), with its title and exact token count. Use this ' +
      'whenever you have a URL and need what the page says. Without max_tokens or max_chars the ' +
      'result is capped at the default budget (10,000 tokens and 48,000 characters unless its ' +
      'operator set MCP_DEFAULT_MAX_TOKENS or MCP_DEFAULT_MAX_CHARS); set max_tokens (or max_chars) ' +
      'to choose the size: a trimmed result lists the ' +
      'sections that were cut (outline) and a next_cursor; call fetch_url again with the same ' +
      'url and that cursor to read the next part. With max_tokens, a query (what you want to ' +
      'learn) returns the passages that best match it instead of the head of the page, under ' +
      'their headings, with markers where text was skipped; the cursor then reads the rest. ' +
      'format "text" drops Markdown syntax; "json" ' +
      'adds typed blocks. links "reference" moves URLs to a numbered list at the end and links ' +
      '"none" drops them (keeping the link text); images "none" drops images: fewer tokens when ' +
      'you do not need every URL. Handles JavaScript-rendered pages and PDFs: the fetcher is ' +
      'chosen automatically (fetch_info.fetcher_used says which; leave fetcher at auto unless a ' +
      'result looks wrong). Pages are cached for 6 hours; use_cache=false forces a fresh copy.' +
      ' max_age (seconds) refetches an older copy and says in fetch_info.changed whether the page changed; ' +
      'include / exclude (CSS selectors) keep only, or drop, parts of the page without fetching it again. ' +
      'For a long PDF, pages ("1-5", "2-4,7") reads only those pages; page_markers marks where each page begins.',
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
      "Estimate how many tokens a URL's content would take, without downloading the page: exact " +
      'when the URL was fetched recently (cached), otherwise from the size the server reports. ' +
      'Cheaper than fetching; use it before fetch_url when a page may be too big for your ' +
      'context. confident=false means the server did not say how big the page is: fetch it with ' +
      'max_tokens instead.',
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
      'Fetch 1 to 20 URLs concurrently, each as Markdown with its title and token count, in the ' +
      'order given. Use it instead of repeated fetch_url calls when you already have several ' +
      'URLs. A URL that fails gets its own error entry and never fails the others. ' +
      'max_tokens_each (or max_chars_each) caps every page; without either the default budget ' +
      '(10,000 tokens and 48,000 characters unless its operator set MCP_DEFAULT_MAX_TOKENS or ' +
      'MCP_DEFAULT_MAX_CHARS) is shared equally by the pages, so the whole result fits it; links, ' +
      'images and query work as in fetch_url. URLs fetched in the last 6 hours come ' +
      'from the cache without being fetched again. max_age, include and exclude work as in fetch_url.',
    inputSchema: BatchFetchRequest,
    outputSchema: BatchResult,
    location: 'body',
    annotations: annotations(true),
    holdsPages: true,
  },
  {
    name: 'search_and_fetch',
    title: 'Search the web and read the top results',
    description:
      'Search the web and return the top results with their page content as Markdown, in one ' +
      'call. Use it when you need information but have no URL yet. num_results is 1 to 10 ' +
      '(default 3); each page is trimmed to max_tokens_each tokens (100 to 20000); without it, ' +
      '2000 each, or less so that all the results together fit the default budget (10,000 tokens and 48,000 ' +
      'characters unless its operator set MCP_DEFAULT_MAX_TOKENS or MCP_DEFAULT_MAX_CHARS); max_chars_each ' +
      'caps each by characters. Each result has title, url, snippet and ' +
      'markdown (the passages that best match the query), or an error when that page could not ' +
      'be fetched. To read a trimmed result ' +
      'further, call fetch_url with its url and next_cursor.',
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
      "List a website's URLs without reading its pages: from its sitemaps, its llms.txt and the start page's " +
      'links, within the site (include_paths and exclude_paths are regular expressions over the path). With ' +
      'search, the URLs come ranked by relevance to it. Use it to find the pages worth reading with fetch_url or ' +
      'fetch_multiple, or to scope crawl_site. 1 credit a call.',
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
      'Read many pages of a website as a job that runs on the server: up to limit pages (default 100) found ' +
      "through the site's sitemaps and links, up to max_depth links from url, within include_paths and " +
      'exclude_paths. Each page is billed like a fetch. Answers at once with the crawl id: call crawl_status with ' +
      'it to follow the progress and read the pages. For a few known URLs, fetch_multiple is quicker.',
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
      "A crawl's status (queued, running, completed, cancelled, failed), its counts and credits, and up to limit " +
      'of its pages in the order they were read, each with its title, URL and the first part of its Markdown ' +
      '(fetch_url reads one whole). Pass next_cursor as cursor for the pages after these; call again while the ' +
      'crawl is queued or running.',
    inputSchema: CrawlStatusArgs,
    outputSchema: CrawlStatusToolResult,
    location: 'querystring',
    annotations: annotations(true),
    holdsPages: true,
  },
];

/** A TypeBox schema as plain JSON Schema (TypeBox keeps its bookkeeping in symbol keys). */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

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

/**
 * An input schema as MCP clients read it: a field the HTTP API also takes null for (`max_tokens`, declared
 * `["integer", "null"]` with default null) is declared with its one type, optional, without the null default. Clients
 * build arguments from `type` alone: the MCP Inspector CLI up to 0.16.5 made a number of `--tool-arg max_tokens=100`
 * only for `"type": "integer"` and sent the string "100" otherwise, and form-building clients do alike. Tool calls are
 * still validated against the HTTP API's schema, so a client that sends null for "not set" is not refused. A field
 * the HTTP API takes as a string or a number (`wait_for`: a selector or milliseconds) is declared a string, whose
 * digits are the number (contract/interaction.ts reads them so).
 */
function withSingleTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return schema;
  const single = ([name, property]: [string, Record<string, unknown>]) => {
    const { type, default: fallback, ...rest } = property;
    if (Array.isArray(type) && type.includes('string') && !type.includes('null')) {
      const { minimum: _min, maximum: _max, ...stringOnly } = rest;
      return [name, { type: 'string', ...stringOnly }];
    }
    if (!Array.isArray(type) || !type.includes('null')) return [name, property];
    const types = (type as unknown[]).filter((t) => t !== 'null');
    return [
      name,
      { type: types.length === 1 ? types[0] : types, ...rest, ...(fallback != null && { default: fallback }) },
    ];
  };
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).map(single)) };
}

/** The tool list as MCP publishes it (tools/list); /.well-known/mcp.json embeds the same list. */
export function listTools(options: { defaultMaxChars?: number } = {}) {
  const inline = Math.max(INLINE_RESULT_CHARS, options.defaultMaxChars ?? 0);
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: withSingleTypes(withOptionalDefaults(toJsonSchema(tool.inputSchema))) as {
      type: 'object';
      [key: string]: unknown;
    },
    outputSchema: toJsonSchema(tool.outputSchema) as { type: 'object'; [key: string]: unknown },
    annotations: { title: tool.title, ...tool.annotations },
    ...(tool.holdsPages && { _meta: { 'anthropic/maxResultSizeChars': inline } }),
  }));
}
