// Pages as MCP resources: a trimmed page links to its rest (fetchdown://pages/<cursor>?url=…), which resources/read
// returns in parts sized as the call that trimmed it was; and a template, fetchdown://fetch/{+url}, reads a URL itself.
// Both run fetch_url (its validation, default budget and cursors), so a resource reads exactly as the tool would.
import type { ReadResourceResult, ResourceLink, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { FetchResult } from '../contract/fetch.js';
import type { ToolName } from '../contract/tools.js';
import { cursorRendering } from '../operations/cursor.js';

const PAGES = 'fetchdown://pages/';
const FETCH = 'fetchdown://fetch/';
/** The _meta key of a part's read-on link, for clients that follow it without reading the text. */
export const NEXT_META_KEY = 'io.github.fetchdown/next';

export const PAGE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: `${FETCH}{+url}`,
    name: 'page',
    title: 'A web page as Markdown',
    description:
      'fetch_url of the URL with the default budget: its Markdown, with a link to read on when it was trimmed.',
    mimeType: 'text/markdown',
  },
];

/** fetch_url as the resources run it: the caller's arguments, validated and sized as a tool call's. */
export type FetchPage = (args: Record<string, unknown>) => Promise<FetchResult>;

/**
 * What a link carries of the call, by the tool's own field names: the fields that name the cached copy (besides the
 * URL, and the rendering the cursor carries itself) and the sizes the call set, under fetch_url's names. A size the
 * call left to the default budget is left to it again.
 */
const CARRIED: Partial<Record<ToolName, Record<string, string>>> = {
  fetch_url: {
    max_tokens: 'max_tokens',
    max_chars: 'max_chars',
    fetcher: 'fetcher',
    include: 'include',
    exclude: 'exclude',
    pages: 'pages',
    page_markers: 'page_markers',
  },
  fetch_multiple: {
    max_tokens_each: 'max_tokens',
    max_chars_each: 'max_chars',
    include: 'include',
    exclude: 'exclude',
    pages: 'pages',
    page_markers: 'page_markers',
  },
  search_and_fetch: { max_tokens_each: 'max_tokens', max_chars_each: 'max_chars' },
};

/**
 * A page read in a browser (waits, actions, a phone's view, a locale, screenshots) or with the caller's headers is
 * cached under a key of those too: a link would have to carry them, and headers and cookies never go into a URI,
 * which clients log. Those pages read on with fetch_url and the cursor, as before.
 */
const UNLINKED = ['wait_for', 'actions', 'headers', 'cookies', 'mobile', 'locale', 'screenshot'];

type Paged = Pick<FetchResult, 'url' | 'next_cursor'>;

/** The read-on link of a part, with the carried fields of the call (as fetch_url names them). */
function pageUri(url: string, cursor: string, carried: Record<string, unknown>): string {
  const query = new URLSearchParams({ url });
  for (const [name, value] of Object.entries(carried))
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  return `${PAGES}${cursor}?${query.toString()}`;
}

/** The carried fields of a call (`given`: the arguments as the caller sent them), or null when it cannot be linked. */
function carriedOf(tool: ToolName, given: Record<string, unknown>): Record<string, unknown> | null {
  const fields = CARRIED[tool];
  if (!fields || UNLINKED.some((name) => given[name] != null)) return null;
  return Object.fromEntries(
    Object.entries(fields).flatMap(([field, as]) => (given[field] != null ? [[as, given[field]]] : [])),
  );
}

/** The resource_link items of a trimmed fetch_url, fetch_multiple or search_and_fetch result: one per trimmed page. */
export function pageLinks(tool: ToolName, given: Record<string, unknown>, result: object): ResourceLink[] {
  const carried = carriedOf(tool, given);
  if (!carried) return [];
  const pages = ('results' in result ? result.results : [result]) as Partial<Paged>[];
  return pages.flatMap((page) =>
    page.next_cursor && page.url
      ? [
          {
            type: 'resource_link' as const,
            uri: pageUri(page.url, page.next_cursor, carried),
            name: `rest of ${page.url}`,
            mimeType: mimeOf(page.next_cursor),
            description: 'The rest of the page: resources/read returns the next part (until its cached copy expires).',
          },
        ]
      : [],
  );
}

function mimeOf(cursor: string): string {
  return cursorRendering(cursor)?.format === 'text' ? 'text/plain' : 'text/markdown';
}

/** Whether `uri` is one of the resources this module reads. */
export const isPageUri = (uri: string) => uri.startsWith(PAGES) || uri.startsWith(FETCH);

/** Numbers and flags come back from a URI as text: fetch_url's schema takes them as JSON values. */
function fromQuery(name: string, values: string[]): unknown {
  if (name === 'include' || name === 'exclude') return values;
  const [value = ''] = values;
  if (name === 'max_tokens' || name === 'max_chars') return /^\d+$/.test(value) ? Number(value) : value;
  if (name === 'page_markers') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/** The fetch_url arguments a page link or a template URI stands for. */
function argumentsOf(uri: string): Record<string, unknown> {
  if (uri.startsWith(FETCH)) return { url: uri.slice(FETCH.length) };
  const [path = '', search = ''] = uri.slice(PAGES.length).split('?', 2);
  const query = new URLSearchParams(search);
  const args: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) args[name] = fromQuery(name, query.getAll(name));
  // The cursor says which rendering it reads on in; the call must repeat it (services/cursor.ts).
  const rendering = cursorRendering(path);
  if (rendering) Object.assign(args, { format: rendering.format, ...rendering.style });
  return { ...args, cursor: path };
}

/**
 * resources/read of a page link or of the template: the part as text (the Markdown, or plain text for format text),
 * closed by a line naming the next link when there is more, which `_meta` carries too.
 */
export async function readPage(fetchPage: FetchPage, uri: string): Promise<ReadResourceResult> {
  const args = argumentsOf(uri);
  const page = await fetchPage(args);
  const carried = Object.fromEntries(
    Object.entries(args).filter(([name]) => Object.values(CARRIED.fetch_url!).includes(name)),
  );
  const next = page.next_cursor ? pageUri(page.url, page.next_cursor, carried) : null;
  const { token_count, total_tokens } = page.metadata;
  const trailer = next ? `\n\n---\nTrimmed (${token_count} of ${total_tokens} tokens). Read on: ${next}` : '';
  return {
    contents: [
      { uri, mimeType: args.format === 'text' ? 'text/plain' : 'text/markdown', text: page.markdown + trailer },
    ],
    ...(next && { _meta: { [NEXT_META_KEY]: next } }),
  };
}
