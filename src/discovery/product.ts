// The words every discovery document shares: the product summary and the links, built from PUBLIC_BASE_URL.
import { INTEGRATIONS } from './integrations.js';

export const PRODUCT_NAME = 'Fetchdown';

export const SUMMARY =
  'Web fetch for AI agents: any URL as clean, LLM-ready Markdown with its title and an exact ' +
  'token count, trimmed to a token budget when asked. Also batch fetches of up to 20 URLs, ' +
  'token estimates without downloading, web search plus fetch of the top results, and whole ' +
  "sites: a site's URLs (map) and its pages read as a job (crawl), as an HTTP API, an MCP server " +
  '(stdio and Streamable HTTP) and a CLI.';

export const AUTH_HEADER = 'X-Service-Key';

/** How to authenticate; whether keyless calls are allowed depends on ANONYMOUS_ACCESS. */
export function authInstructions(anonymousAccess: boolean): string {
  const keyless = anonymousAccess
    ? 'Without a key, the metered endpoints other than /mcp serve an anonymous tier with a small per-IP rate limit.'
    : 'The metered endpoints refuse calls without a key (401).';
  return (
    `Send your API key in the X-Service-Key header on /fetch, /fetch/batch, /estimate, ` +
    `/search, /cache, /map, /crawl, /mcp and the /account endpoints (a crawl always needs one). ` +
    `Create an account and a first key with ` +
    `POST /account/signup {"email": "…"} (no authentication, free tier without a credit card): ` +
    `the key is shown once and e-mailed. ${keyless} POST /mcp also takes an OAuth access token ` +
    `(Authorization: Bearer): MCP clients given only its URL sign their user in from the 401's WWW-Authenticate ` +
    `header (/.well-known/oauth-protected-resource/mcp). For the stdio MCP server in remote mode, ` +
    `set FETCHDOWN_API_URL and FETCHDOWN_API_KEY.`
  );
}

/** The endpoints that never need credentials. */
export const PUBLIC_PATHS = [
  '/spec',
  '/.well-known/mcp.json',
  '/llms.txt',
  '/openapi.json',
  '/health',
  '/ready',
  '/',
  '/examples',
  '/examples/{slug}',
  '/dashboard',
  ...INTEGRATIONS.map((i) => i.path),
];

export function discoveryLinks(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    base,
    spec: `${base}/spec`,
    openapi: `${base}/openapi.json`,
    mcp_manifest: `${base}/.well-known/mcp.json`,
    mcp_endpoint: `${base}/mcp`,
    llms_txt: `${base}/llms.txt`,
    examples: `${base}/examples`,
  };
}
