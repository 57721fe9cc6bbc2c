// POST /search: web search plus a fetch of the top results.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SearchRequest, SearchResult } from '../../contract/fetch.js';
import { inBody } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const searchRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/search',
    {
      schema: {
        summary: 'Search the web and fetch the top results as Markdown',
        description:
          'Asks the configured search provider (SearXNG or Brave), then fetches the top ' +
          '`num_results` results concurrently through the same pipeline as /fetch, each trimmed to ' +
          "`max_tokens_each`. Results keep the provider's order; one that cannot be fetched carries " +
          '`error` and never fails the search. 503 `search_not_configured` when the server has no ' +
          'provider; 502 `search_failed` when the provider fails.',
        tags: ['fetching'],
        body: SearchRequest,
        response: responses(SearchResult, [502, 503]),
      },
    },
    async (request) => deps.operations.searchAndFetch(request.caller, request.body, inBody),
  );
};
