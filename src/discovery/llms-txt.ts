// GET /llms.txt in the llmstxt.org layout: H1 name, blockquote summary, notes, then H2 sections of Markdown links.
import type { Config } from '../config.js';
import { TOOLS } from '../contract/tools.js';
import { MAP_MILLICREDITS, toCredits } from '../pricing.js';
import { INTEGRATIONS } from './integrations.js';
import { PRODUCT_NAME, SUMMARY, discoveryLinks } from './product.js';

export function buildLlmsTxt(config: Config): string {
  const l = discoveryLinks(config.PUBLIC_BASE_URL);
  return `# ${PRODUCT_NAME}

> ${SUMMARY}

Send requests as JSON with your API key in the \`X-Service-Key\` header. Fetch a page:

\`\`\`sh
curl -s ${l.base}/fetch -H 'content-type: application/json' -H 'X-Service-Key: YOUR_KEY' \\
  -d '{"url": "https://example.com/", "max_tokens": 2000}'
\`\`\`

The answer holds \`markdown\`, \`metadata.title\`, \`metadata.token_count\`, \`cache.hit\` and \`fetch_info.fetcher_used\`. A trimmed page also has \`next_cursor\`: send it back as \`cursor\` to read the next part. Add \`"query": "what you want to know"\` beside \`max_tokens\` to get the passages that best match it rather than the head of the page. Errors are \`{"detail", "code"}\` (422s: \`{"detail": [{"loc", "msg", "type"}]}\`).

Or read a page at a URL of its own: the body is the Markdown, and \`X-Token-Count\`, \`X-Fetcher\`, \`X-Cache\` and \`X-Credits\` are headers (query parameters named like POST /fetch fields are ours, the rest stay with the target):

\`\`\`sh
curl -s '${l.base}/r/https://example.com/page?max_tokens=2000' -H 'X-Service-Key: YOUR_KEY'
\`\`\`

\`max_age\` (seconds) refetches a cached copy older than that and says in \`fetch_info.changed\` whether the content changed (\`fetch_info.content_hash\` hashes it); \`include\` and \`exclude\` (CSS selectors) choose the part of the page, made from the cached copy without fetching it again.

Whole sites: \`POST /map {"url": "https://example.com/", "search": "pricing"}\` lists a site's URLs from its sitemaps, llms.txt and links (${toCredits(MAP_MILLICREDITS)} credit). \`POST /crawl {"url": "https://example.com/docs/", "limit": 50}\` reads its pages as a job and answers 202 with an \`id\`; \`GET /crawl/{id}\` gives its \`status\`, \`counts\` and \`pages\` (each a fetch result; pass \`next_cursor\` as \`cursor\` for more), \`DELETE /crawl/{id}\` cancels it. Each page is billed as a fetch of it.

MCP tools: ${TOOLS.map((t) => `\`${t.name}\``).join(', ')}, over Streamable HTTP at ${l.mcp_endpoint} or over stdio with \`npx -y fetchdown mcp\`.

## Docs

- [Service summary](${l.spec}): product summary, MCP tools, authentication and pricing as JSON
- [OpenAPI 3.1 description](${l.openapi}): every endpoint with its request and response schemas and limits
- [MCP manifest](${l.mcp_manifest}): MCP transports, tools with their input schemas, authentication

## Examples

- [Examples](${l.examples}): worked examples of fetching, trimming, batching and searching

## Integrations

${INTEGRATIONS.map((i) => `- [${i.title}](${l.base}${i.path}): ${i.description}`).join('\n')}

## Optional

- [MCP endpoint](${l.mcp_endpoint}): Streamable HTTP transport (POST JSON-RPC)
- [Health](${l.base}/health): liveness probe
`;
}
