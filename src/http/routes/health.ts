// GET /health (liveness only, no dependency checks), GET /ready (database and cache reachable) and GET /openapi.json.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app-deps.js';

const Check = Type.Object({ ok: Type.Boolean(), ms: Type.Integer(), detail: Type.Optional(Type.String()) });
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Record(Type.String(), Check, { description: 'One entry per dependency: database, cache.' }),
});

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
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
  app.get(
    '/ready',
    {
      schema: {
        summary: 'Readiness probe',
        description:
          '200 when the account database and the cache answer; 503 otherwise, with `checks` saying what is broken.',
        tags: ['operations'],
        response: { 200: ReadyBody, 503: ReadyBody },
      },
    },
    async (_request, reply) => {
      const { ready, checks } = await deps.operations.readiness();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
