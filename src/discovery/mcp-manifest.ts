// GET /.well-known/mcp.json: what an MCP client needs before connecting: transports, tools with schemas, auth.
import type { Config } from '../config.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { listTools } from '../contract/tools.js';
import { API_VERSION } from '../version.js';
import { AUTH_HEADER, SUMMARY, authInstructions, discoveryLinks } from './product.js';

export function buildMcpManifest(config: Config) {
  const links = discoveryLinks(config.PUBLIC_BASE_URL);
  return {
    name: 'fetchdown',
    title: 'Fetchdown',
    version: API_VERSION,
    description: SUMMARY,
    protocolVersion: LATEST_PROTOCOL_VERSION,
    websiteUrl: links.base,
    documentation: { spec: links.spec, openapi: links.openapi, llms_txt: links.llms_txt },
    transports: [
      {
        type: 'streamable-http',
        url: links.mcp_endpoint,
        stateless: true,
        headers: [
          {
            name: AUTH_HEADER,
            description: 'Your Fetchdown API key',
            isRequired: !config.ANONYMOUS_ACCESS,
            isSecret: true,
          },
        ],
      },
      {
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'fetchdown', 'mcp'],
        env: [
          {
            name: 'FETCHDOWN_API_URL',
            description: `Remote mode: the API to call, e.g. ${links.base} (map_site and the crawl tools need it)`,
            isSecret: false,
          },
          {
            name: 'FETCHDOWN_API_KEY',
            description: 'Remote mode: your API key (usage is billed to it)',
            isSecret: true,
          },
          {
            name: 'SEARCH_PROVIDER',
            description: 'Local mode: searxng or brave, for search_and_fetch',
            isSecret: false,
          },
          { name: 'SEARCH_BASE_URL', description: 'Local mode: the SearXNG instance (searxng)', isSecret: false },
          { name: 'SEARCH_API_KEY', description: 'Local mode: the Brave Search API key (brave)', isSecret: true },
        ],
      },
    ],
    tools: listTools({ defaultMaxChars: config.MCP_DEFAULT_MAX_CHARS }),
    auth: {
      type: 'api_key',
      in: 'header',
      name: AUTH_HEADER,
      required: !config.ANONYMOUS_ACCESS,
      instructions: authInstructions(config.ANONYMOUS_ACCESS),
      // Streamable HTTP: what an MCP client that connects by URL discovers from POST /mcp's 401 (RFC 9728).
      oauth: {
        protected_resource_metadata: `${config.PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/mcp`,
        authorization_server: config.PUBLIC_BASE_URL,
      },
    },
  };
}
