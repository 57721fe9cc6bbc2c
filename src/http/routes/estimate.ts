// GET /estimate: token count of a URL without downloading its body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EstimateResult, UrlQuery } from '../../contract/fetch.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const estimateRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/estimate',
    {
      schema: {
        summary: 'Estimate the token count of a URL without fetching the body',
        description:
          'Exact (confident) when the URL is cached; otherwise from Content-Length via HEAD (or a ' +
          'one-byte ranged GET when HEAD is refused). confident=false when the server sends no ' +
          'length: fetch with max_tokens instead.',
        tags: ['fetching'],
        querystring: UrlQuery,
        response: responses(EstimateResult, [403, 502, 504]),
      },
    },
    async (request) => deps.operations.estimate(request.caller, request.query.url),
  );
};
