// POST /fetch and POST /fetch/batch.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { isSharedAnswer } from '../../services/answer-memo.js';
import { fetchBatch } from '../../services/batch.js';
import type { Services } from '../../services/index.js';
import { BatchFetchRequest, BatchResult, FetchRequest, FetchResult, responses } from '../schemas.js';

const FETCH_ERRORS = [403, 413, 415, 422, 502, 503, 504];

/** The JSON of answers the fetch service hands to many requests (a cached page read whole), made once per answer. */
const serialized = new WeakMap<FetchResult, string>();

/** A shared answer as the JSON its response schema gives it (reply.serialize), serialised the first time only. */
function sendFetchResult(reply: FastifyReply, result: FetchResult): FetchResult | string {
  if (!isSharedAnswer(result)) return result;
  let json = serialized.get(result);
  if (json === undefined) {
    json = reply.serialize(result) as string;
    serialized.set(result, json);
  }
  void reply.type('application/json; charset=utf-8');
  return json;
}

export const fetchRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/fetch',
    {
      schema: {
        summary: 'Fetch one URL as LLM-ready Markdown',
        description: 'Returns the main content of the page with metadata and an exact o200k token count, trimmed to max_tokens when asked; long pages can be read in parts with `cursor`.',
        tags: ['fetching'],
        body: FetchRequest,
        response: responses(FetchResult, FETCH_ERRORS),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await request.meter.fetch(body.url, () =>
        services.fetchService.fetchOne({
          url: body.url,
          maxTokens: body.max_tokens,
          format: body.format,
          useCache: body.use_cache,
          cursor: body.cursor,
          fetcher: body.fetcher,
          style: { links: body.links, images: body.images },
        }),
      );
      return sendFetchResult(reply, result);
    },
  );

  app.post(
    '/fetch/batch',
    {
      schema: {
        summary: 'Fetch up to 20 URLs concurrently',
        description: 'Results come in input order; a URL that fails gets {url, error} and never fails the batch.',
        tags: ['fetching'],
        body: BatchFetchRequest,
        response: responses(BatchResult, [413]),
      },
    },
    async (request) => {
      const body = request.body;
      // Billed per URL: a URL the account cannot pay for gets a quota_exceeded error entry (402 if not even one can).
      const fetchService = await request.meter.batch(services.fetchService);
      return fetchBatch(fetchService, {
        urls: body.urls,
        maxTokensEach: body.max_tokens_each,
        useCache: body.use_cache,
        style: { links: body.links, images: body.images },
      });
    },
  );
};
