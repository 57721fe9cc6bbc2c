// The operations run in this process over the services: the same pipeline, cache and SSRF guard as the HTTP routes.
// Over HTTP (/mcp) they run through the caller's meter, priced and billed exactly like the REST routes.
import { unmetered, type Meter } from '../accounts/meter.js';
import { fetchBatch } from '../services/batch.js';
import type { Services } from '../services/index.js';
import type { Operations } from './operations.js';

export function createLocalOperations(services: Services, meter: Meter = unmetered): Operations {
  return {
    fetchUrl: (args) =>
      meter.fetch(args.url, () =>
        services.fetchService.fetchOne({
          url: args.url,
          maxTokens: args.max_tokens,
          format: args.format,
          useCache: args.use_cache,
          cursor: args.cursor,
          fetcher: args.fetcher,
          style: { links: args.links, images: args.images },
        }),
      ),
    estimate: (args) => meter.estimate(args.url, () => services.estimate(args.url)),
    fetchMultiple: async (args) =>
      fetchBatch(await meter.batch(services.fetchService), {
        urls: args.urls,
        maxTokensEach: args.max_tokens_each,
        useCache: args.use_cache,
        style: { links: args.links, images: args.images },
      }),
    searchAndFetch: (args) =>
      meter.search(args.num_results, () => services.search({ query: args.query, numResults: args.num_results, maxTokensEach: args.max_tokens_each })),
  };
}
