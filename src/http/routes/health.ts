// GET /health: liveness only (no dependency checks), and GET /openapi.json.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness probe',
        description: 'Answers while the process runs; does not check the database or cache.',
        tags: ['operations'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
