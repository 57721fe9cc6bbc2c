// The worked examples as data: what each shows, and the requests it makes against the example site (served at
// EXAMPLE_ORIGIN in the outputs). `npm run examples` sends them through the real pipeline and records the answers.
import { html, type Html } from '../html.js';

/** The host the example site appears under in the requests and answers shown (it runs on 127.0.0.1 when recorded). */
export const EXAMPLE_ORIGIN = 'https://garden.example';

export interface ExampleStep {
  method: 'GET' | 'POST';
  path: string;
  /** The JSON body; given the previous step's answer, so a step can read on with its cursor. */
  body?: (previous: any) => unknown;
  headers?: Record<string, string>;
}

export interface Example {
  slug: string;
  title: string;
  summary: string;
  explanation: Html;
  steps: ExampleStep[];
}

const page = (path: string) => `${EXAMPLE_ORIGIN}${path}`;

export const EXAMPLES: readonly Example[] = [
  {
    slug: 'article-to-markdown',
    title: 'An article to Markdown',
    summary: 'One URL in; the article as clean Markdown with its title and exact token count out.',
    explanation: html`<p>
      The navigation, the cookie banner, the sidebar and the footer are gone; the list and the table survive as
      Markdown. <code>metadata.token_count</code> is an exact o200k count of the Markdown returned, and
      <code>fetch_info.fetcher_used</code> says the cheap html fetcher (1 credit) was enough.
    </p>`,
    steps: [{ method: 'POST', path: '/fetch', body: () => ({ url: page('/article') }) }],
  },
  {
    slug: 'long-page-in-parts',
    title: 'A long page read in parts',
    summary: 'max_tokens trims at a block boundary, lists what was cut, and gives a cursor to read on.',
    explanation: html`<p>
      The first answer stops before 300 tokens at the end of a block. <code>outline</code> lists the headings that were
      cut, so an agent can decide whether it needs them, and <code>next_cursor</code> reads on from the same cached copy
      (the second request is a cache hit, billed at the cache rate).
    </p>`,
    steps: [
      { method: 'POST', path: '/fetch', body: () => ({ url: page('/guide'), max_tokens: 300 }) },
      {
        method: 'POST',
        path: '/fetch',
        body: (previous) => ({ url: page('/guide'), max_tokens: 300, cursor: previous.next_cursor }),
      },
    ],
  },
  {
    slug: 'pdf',
    title: 'A PDF',
    summary: 'A PDF URL is detected and its text laid out as Markdown: headings, lists, tables, columns.',
    explanation: html`<p>
      The same request as for a web page. The router sees <code>application/pdf</code> and hands the file to the pdf
      fetcher, which rebuilds headings from font sizes, joins hyphenated lines, keeps the table and reads two columns in
      order. Running heads and page numbers are dropped. <code>page_markers</code> marks where each page begins, and
      <code>pages</code> (<code>"1-5"</code>, <code>"2-4,7"</code>) reads part of a long PDF.
    </p>`,
    steps: [{ method: 'POST', path: '/fetch', body: () => ({ url: page('/report.pdf'), page_markers: true }) }],
  },
  {
    slug: 'javascript-page',
    title: 'A JavaScript-rendered page',
    summary: 'An app shell that draws its content in the browser is rendered in headless Chromium.',
    explanation: html`<p>
      The HTML of this page is an empty <code>&lt;div id="root"&gt;</code>: a plain HTTP client gets nothing. The html
      fetcher recognises the app shell and the router moves on to the browser fetcher, which renders the page behind the
      same SSRF guard and returns what a person would read (<code>fetch_info.attempts</code> shows both steps; 5
      credits).
    </p>`,
    steps: [{ method: 'POST', path: '/fetch', body: () => ({ url: page('/planner') }) }],
  },
  {
    slug: 'batch',
    title: 'A batch of URLs',
    summary: 'Up to 20 URLs fetched concurrently, each with its own result or error, in input order.',
    explanation: html`<p>
      Each URL is fetched, cached and billed on its own; a URL that fails (here one that does not exist) is an error
      entry in its place and costs nothing, while the others succeed.
    </p>`,
    steps: [
      {
        method: 'POST',
        path: '/fetch/batch',
        body: () => ({ urls: [page('/article'), page('/report.pdf'), page('/missing')], max_tokens_each: 120 }),
      },
    ],
  },
  {
    slug: 'search-and-fetch',
    title: 'Search, then fetch the results',
    summary: 'A web search whose top results come back already fetched as Markdown, each within a token budget.',
    explanation: html`<p>
      The search provider (SearXNG or Brave, configured by the operator) finds the pages; Fetchdown fetches the top
      <code>num_results</code> with the same pipeline and trims each to <code>max_tokens_each</code>. Up to three
      fetched results cost the flat search price.
    </p>`,
    steps: [
      {
        method: 'POST',
        path: '/search',
        body: () => ({ query: 'balcony tomatoes', num_results: 2, max_tokens_each: 150 }),
      },
    ],
  },
  {
    slug: 'mcp-tools',
    title: 'The MCP tools',
    summary: 'The same pipeline as MCP tools over Streamable HTTP: fetch_url called with JSON-RPC.',
    explanation: html`<p>
      MCP clients (Claude, Cursor, LangChain) do this for you; here is the wire format. The result carries the Markdown
      as text content for the model and the full answer as <code>structuredContent</code>. See the
      <a href="/claude">Claude</a>, <a href="/cursor">Cursor</a> and <a href="/langchain">LangChain</a> pages to set a
      client up.
    </p>`,
    steps: [
      {
        method: 'POST',
        path: '/mcp',
        headers: { accept: 'application/json, text/event-stream' },
        body: () => ({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'fetch_url', arguments: { url: page('/article'), max_tokens: 80 } },
        }),
      },
    ],
  },
];

export const findExample = (slug: string) => EXAMPLES.find((e) => e.slug === slug);
