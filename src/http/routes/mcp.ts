// POST /mcp: the MCP server over Streamable HTTP, stateless (a fresh server and transport per request, no sessions),
// so any API process behind a load balancer can answer any request.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppDeps } from '../app-deps.js';
import { createMcpServer } from '../../mcp/server.js';
import { forCaller, type AgentOperations } from '../../operations/agent.js';
import type { Caller } from '../../operations/index.js';
import { AppError } from '../../errors.js';
import { requireMcpCaller } from '../mcp-auth.js';

/** Marks a body that is not JSON, so it gets JSON-RPC's parse error rather than the REST 422. */
const UNPARSABLE = Symbol('unparsable');

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'www-authenticate, mcp-session-id, mcp-protocol-version, x-request-id',
};
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST, GET, DELETE',
  'access-control-allow-headers':
    'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-service-key',
  'access-control-max-age': '86400',
};

/** The operations a caller may run: a connected application without the search scope cannot search. */
function withinScopes(operations: AgentOperations, caller: Caller): AgentOperations {
  if (caller.kind !== 'account' || !caller.scopes || caller.scopes.includes('search')) return operations;
  const refuse = () =>
    Promise.reject(new AppError('insufficient_scope', 'this connection was not allowed to search; connect again'));
  return { ...operations, searchAndFetch: refuse };
}

export const mcpRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  // Scoped to this plugin: the other routes keep the default JSON parser.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(null, UNPARSABLE);
    }
  });

  // Clients that run in a browser (a web MCP inspector, a web agent) may call from any origin: credentials here are
  // bearer tokens and keys, never cookies, so no site can act for a user who did not hand it a token. They read the
  // headers an MCP client needs (the 401's WWW-Authenticate among them).
  // On the raw response: the POST handler answers on it directly (hijacked), and Fastify's own answers merge them.
  app.addHook('onRequest', async (_request, reply) => {
    for (const [name, value] of Object.entries(CORS_HEADERS)) reply.raw.setHeader(name, value);
  });
  app.options('/mcp', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(204).headers(PREFLIGHT_HEADERS).send(),
  );

  // An API key or an OAuth access token (never the anonymous tier: an MCP client signs in when it is told to), billed
  // as on /fetch; the tools run the operations for that caller.
  requireMcpCaller(app, deps);
  app.post(
    '/mcp',
    {
      schema: {
        summary: 'MCP server (Streamable HTTP transport)',
        description:
          'The tools fetch_url, estimate_tokens, fetch_multiple, search_and_fetch, map_site, crawl_site and ' +
          'crawl_status over the Model Context Protocol, stateless (no Mcp-Session-Id). Send JSON-RPC messages ' +
          'with `Accept: application/json, text/event-stream`; answers are JSON. See /.well-known/mcp.json.',
        tags: ['mcp'],
        body: Type.Unknown({ description: 'A JSON-RPC 2.0 message (MCP).' }),
      },
    },
    async (request, reply) => {
      if (request.body === UNPARSABLE)
        return reply.code(400).send(jsonRpcError(-32700, 'Parse error: the body is not valid JSON'));
      const operations = withinScopes(forCaller(deps.operations, request.caller), request.caller);
      const server = createMcpServer(operations, {
        defaultMaxTokens: deps.config.MCP_DEFAULT_MAX_TOKENS,
        defaultMaxChars: deps.config.MCP_DEFAULT_MAX_CHARS,
        logError: (error) => request.log.error({ err: error }, 'mcp tool failed'),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );

  // Stateless: no server-initiated stream to GET and no session to DELETE.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .code(405)
          .header('allow', 'POST')
          .send(jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; use POST')),
    });
  }
};
