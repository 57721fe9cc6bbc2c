// GET /spec: the product in one JSON document: summary, links, the MCP tools, authentication and the price list.
import type { Config } from '../config.js';
import {
  MAX_BATCH_URLS,
  MAX_SEARCH_RESULTS,
  MAX_SELECTOR_LENGTH,
  MAX_SELECTORS,
  MAX_URL_LENGTH,
} from '../contract/fetch.js';
import { MAX_MAP_LINKS } from '../contract/crawl.js';
import { TOOLS } from '../contract/tools.js';
import { INTEGRATIONS } from './integrations.js';
import { describePricing, MAP_MILLICREDITS, toCredits } from '../pricing.js';
import { API_VERSION } from '../version.js';
import { AUTH_HEADER, PRODUCT_NAME, PUBLIC_PATHS, SUMMARY, authInstructions, discoveryLinks } from './product.js';

export function buildSpec(config: Config) {
  const links = discoveryLinks(config.PUBLIC_BASE_URL);
  return {
    name: PRODUCT_NAME,
    version: API_VERSION,
    summary: SUMMARY,
    links: {
      openapi: links.openapi,
      mcp_manifest: links.mcp_manifest,
      mcp_endpoint: links.mcp_endpoint,
      llms_txt: links.llms_txt,
      examples: links.examples,
    },
    operations: [
      {
        method: 'POST',
        path: '/fetch',
        summary:
          'One URL as Markdown (or text, or typed JSON blocks), optionally trimmed to max_tokens; with a query, ' +
          'the passages that best match it',
      },
      {
        method: 'GET',
        path: '/r/{url}',
        summary:
          'One URL as Markdown at a URL of its own (curl host/r/https://example.com/page): the body is the ' +
          'content, X-Token-Count, X-Fetcher, X-Cache and X-Credits are headers; POST /fetch fields as query ' +
          'parameters',
      },
      {
        method: 'POST',
        path: '/fetch/batch',
        summary: `Up to ${MAX_BATCH_URLS} URLs concurrently, results in input order`,
      },
      { method: 'GET', path: '/estimate', summary: 'Token count of a URL without downloading the body' },
      {
        method: 'POST',
        path: '/search',
        summary: `Web search plus fetch of the top 1 to ${MAX_SEARCH_RESULTS} results`,
      },
      { method: 'GET', path: '/cache', summary: 'Cache status of a URL' },
      { method: 'DELETE', path: '/cache', summary: 'Drop the cached copy of a URL' },
      {
        method: 'POST',
        path: '/map',
        summary:
          `A site's URLs (up to ${MAX_MAP_LINKS}) from its sitemaps, llms.txt and links, ranked by a search when ` +
          `given; ${toCredits(MAP_MILLICREDITS)} credit a call`,
      },
      {
        method: 'POST',
        path: '/crawl',
        summary: 'Start a crawl of a site as a job: 202 with its id; each page is billed as a fetch (needs a key)',
      },
      { method: 'GET', path: '/crawl/{id}', summary: "A crawl's status, counts and pages, a cursor at a time" },
      { method: 'GET', path: '/crawl/{id}/errors', summary: "A crawl's pages that could not be read, with why" },
      { method: 'DELETE', path: '/crawl/{id}', summary: 'Cancel a crawl: nothing new starts, nothing more is charged' },
      { method: 'GET', path: '/account/crawls', summary: "The account's latest crawls with their progress" },
      { method: 'POST', path: '/mcp', summary: 'The MCP tools over Streamable HTTP' },
    ],
    pages: {
      landing: `${links.base}/`,
      examples: links.examples,
      dashboard: `${links.base}/dashboard`,
      integrations: INTEGRATIONS.map((i) => ({ name: i.name, path: i.path, url: `${links.base}${i.path}` })),
    },
    mcp: {
      tools: TOOLS.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description })),
      transports: {
        'streamable-http': links.mcp_endpoint,
        stdio: 'npx -y fetchdown mcp',
      },
    },
    authentication: {
      type: 'api_key',
      in: 'header',
      header: AUTH_HEADER,
      instructions: authInstructions(config.ANONYMOUS_ACCESS),
      anonymous_access: config.ANONYMOUS_ACCESS,
      public_endpoints: PUBLIC_PATHS,
    },
    limits: {
      url_length: { min: 1, max: MAX_URL_LENGTH },
      batch_urls: { min: 1, max: MAX_BATCH_URLS },
      search_query_length: { min: 2, max: 500 },
      search_num_results: { min: 1, max: MAX_SEARCH_RESULTS, default: 3 },
      search_max_tokens_each: { min: 100, max: 20000, default: 2000 },
      map_links: { min: 1, max: MAX_MAP_LINKS, default: 100 },
      selectors: { max_items: MAX_SELECTORS, max_length: MAX_SELECTOR_LENGTH },
      cache_ttl_hours: 6,
      free_tier_credits_per_month: config.FREE_MONTHLY_CREDITS,
    },
    pricing: describePricing({
      free: config.FREE_MONTHLY_CREDITS,
      starter: config.STARTER_MONTHLY_CREDITS,
      pro: config.PRO_MONTHLY_CREDITS,
      scale: config.SCALE_MONTHLY_CREDITS,
    }),
    billing: {
      enabled: config.STRIPE_SECRET_KEY !== undefined,
      checkout:
        'POST /billing/checkout {"mode": "pack" | "subscription", "item_key": a pack or plan ' +
        'item_key above} with the session cookie or X-Service-Key: answers {url} of a Stripe ' +
        'Checkout page',
      portal: 'GET /billing/portal: answers {url} of the Stripe Billing Portal (invoices, plan changes, cancellation)',
    },
  };
}
