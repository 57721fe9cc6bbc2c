// GET and DELETE /cache: inspect or drop the cached copy of a URL.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CacheDeleted, CacheStatus, UrlQuery } from '../../contract/fetch.js';
import { inQuery } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const cacheRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/cache',
    {
      schema: {
        summary: 'Cache status of a URL',
        description:
          'Needs an API key, except from this machine: the cache is shared, and its status tells whether others ' +
          'fetched the URL and when.',
        tags: ['cache'],
        querystring: UrlQuery,
        response: responses(CacheStatus),
      },
    },
    async (request) => deps.operations.cacheStatus(request.caller, request.query.url, inQuery),
  );
  app.delete(
    '/cache',
    {
      schema: {
        summary: 'Invalidate the cached copy of a URL',
        description: 'Needs an API key: the next caller of the URL pays a full fetch instead of a cache hit.',
        tags: ['cache'],
        querystring: UrlQuery,
        response: responses(CacheDeleted),
      },
    },
    async (request) => deps.operations.deleteCached(request.caller, request.query.url, inQuery),
  );
};
