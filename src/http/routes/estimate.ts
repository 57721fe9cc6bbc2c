// GET /estimate: token count of a URL without downloading its body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EstimateResult, UrlQuery } from '../../contract/fetch.js';
import { inQuery } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const estimateRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/estimate',
    {
      schema: {
        summary: 'Estimate the token count of a URL without fetching the body',
        description:
          'Exact when the URL is cached; otherwise one GET that reads at most 64 KB as sent over ' +
          'the wire (Range: bytes=0-65535, gzip and br accepted: a compressed page usually arrives ' +
          'whole), extracted and counted, or extrapolated when the page is longer; HEAD and the ' +
          'length times a ratio when ranges are refused. `method` says which. confident=false when ' +
          'the length is unknown: fetch with max_tokens instead.',
        tags: ['fetching'],
        querystring: UrlQuery,
        response: responses(EstimateResult, [403, 502, 504]),
      },
    },
    async (request) => deps.operations.estimate(request.caller, request.query.url, inQuery),
  );
};
