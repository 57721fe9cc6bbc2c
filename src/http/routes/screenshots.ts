// GET /screenshots/<id>.<format>: a screenshot a fetch took, to the caller who took it (its key, or its address
// without one); 404 for anyone else, and once it has expired.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const screenshotRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/screenshots/:file',
    {
      schema: {
        summary: 'A screenshot taken by a fetch',
        description:
          'The `screenshot_url` (or `actions.screenshots`) of a fetch answer: PNG or JPEG, served to the same ' +
          'caller until it expires (24 hours by default).',
        tags: ['fetch'],
        params: Type.Object({ file: Type.String({ maxLength: 64, description: '<id>.png or <id>.jpeg' }) }),
        response: responses(
          Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image (PNG or JPEG).' }),
          [404],
        ),
      },
    },
    async (request, reply) => {
      const shot = await deps.operations.screenshot(request.caller, request.params.file);
      // Private to its caller: no shared cache may keep it.
      return reply.type(shot.type).header('cache-control', 'private, max-age=3600').send(shot.bytes);
    },
  );
};
