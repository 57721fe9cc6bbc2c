// GET /spec, /.well-known/mcp.json and /llms.txt: public, cacheable descriptions of the service for agents.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { buildLlmsTxt } from '../../discovery/llms-txt.js';
import { buildMcpManifest } from '../../discovery/mcp-manifest.js';
import { buildSpec } from '../../discovery/spec.js';
import type { AppDeps } from '../app-deps.js';

// Built once: they depend only on the config. Readable from any origin, as they exist to be found.
const HEADERS = { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' };

const SpecDocument = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    summary: Type.String(),
    links: Type.Record(Type.String(), Type.String({ format: 'uri' })),
    operations: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), summary: Type.String() })),
    mcp: Type.Unknown({ description: 'The MCP tools with their descriptions, and the transports.' }),
    authentication: Type.Unknown({
      description: 'How to authenticate (X-Service-Key) and which endpoints are public.',
    }),
    limits: Type.Unknown(),
    pricing: Type.Unknown({ description: 'Credit value, per-route credits, flat rates, packs and plans.' }),
  },
  { additionalProperties: true },
);

const McpManifest = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    description: Type.String(),
    transports: Type.Array(Type.Unknown()),
    tools: Type.Array(Type.Unknown()),
    auth: Type.Unknown(),
  },
  { additionalProperties: true },
);

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const spec = buildSpec(deps.config);
  const manifest = buildMcpManifest(deps.config);
  const llmsTxt = buildLlmsTxt(deps.config);

  app.get(
    '/spec',
    {
      schema: {
        summary: 'The service in one document: summary, links, MCP tools, authentication, pricing',
        tags: ['discovery'],
        response: { 200: SpecDocument },
      },
    },
    async (_request, reply) => reply.headers(HEADERS).send(spec),
  );
  app.get(
    '/.well-known/mcp.json',
    {
      schema: {
        summary: 'The MCP manifest: transports, tools with input schemas, authentication',
        tags: ['discovery'],
        response: { 200: McpManifest },
      },
    },
    async (_request, reply) => reply.headers(HEADERS).send(manifest),
  );
  app.get(
    '/llms.txt',
    {
      schema: {
        summary: 'A Markdown overview for language models (llmstxt.org)',
        tags: ['discovery'],
        response: {
          200: { description: 'Markdown in the llms.txt layout', content: { 'text/plain': { schema: Type.String() } } },
        },
      },
    },
    async (_request, reply) => reply.headers(HEADERS).type('text/plain; charset=utf-8').send(llmsTxt),
  );
};
