// GET and DELETE /cache: inspect or drop the cached copy of a URL.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.js';
import { CacheDeleted, CacheStatus, UrlQuery, responses } from '../schemas.js';

export const cacheRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/cache',
    {
      schema: { summary: 'Cache status of a URL', tags: ['cache'], querystring: UrlQuery, response: responses(CacheStatus) },
    },
    async (request) => services.fetchService.cacheStatus(request.query.url),
  );
  app.delete(
    '/cache',
    {
      schema: { summary: 'Invalidate the cached copy of a URL', tags: ['cache'], querystring: UrlQuery, response: responses(CacheDeleted) },
    },
    async (request) => services.fetchService.deleteCached(request.query.url),
  );
};
