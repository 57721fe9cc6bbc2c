// POST /fetch and POST /fetch/batch.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { BatchFetchRequest, BatchResult, FetchRequest, FetchResult } from '../../contract/fetch.js';
import { inBody } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { isSharedAnswer } from '../../operations/fetching.js';
import { responses } from '../responses.js';

const FETCH_ERRORS = [403, 413, 415, 422, 502, 503, 504];

/**
 * The JSON of answers the fetch service hands to many requests (a cached page read whole), made once per answer. Kept
 * as bytes: a string built by the serialiser is a rope, and Fastify's Content-Length and the socket's UTF-8 encoding
 * walked it again on every request (docs/benchmarks-log.md, "Serving"). Keyed by the answer itself, so it goes when
 * the answer memo (pipeline.ts) lets the answer go.
 */
const serialized = new WeakMap<FetchResult, Buffer>();

/**
 * The route's serialiser of a 200 JSON answer, the one Fastify picks for a returned value. Not reply.serialize: it
 * ignores the content type, so for GET /r/, whose 200 schemas are keyed by content type, it found the map of them.
 */
function jsonSerializer(reply: FastifyReply): (payload: FetchResult) => string {
  return reply.getSerializationFunction('200', 'application/json') ?? reply.getSerializationFunction('200')!;
}

/** A shared answer sent as the JSON its response schema gives it, serialised the first time only. */
export function sendFetchResult(reply: FastifyReply, result: FetchResult): FetchResult | FastifyReply {
  if (!isSharedAnswer(result)) return result;
  let json = serialized.get(result);
  if (json === undefined) {
    json = Buffer.from(jsonSerializer(reply)(result));
    serialized.set(result, json);
  }
  return reply.type('application/json; charset=utf-8').send(json);
}

export const fetchRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/fetch',
    {
      schema: {
        summary: 'Fetch one URL as LLM-ready Markdown',
        description:
          'Returns the main content of the page with metadata and an exact o200k token count, ' +
          'trimmed to max_tokens when asked; long pages can be read in parts with `cursor`.',
        tags: ['fetching'],
        body: FetchRequest,
        response: responses(FetchResult, FETCH_ERRORS),
      },
    },
    async (request, reply) =>
      sendFetchResult(reply, await deps.operations.fetchUrl(request.caller, request.body, inBody)),
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
    // Billed per URL: a URL the account cannot pay for gets a quota_exceeded entry (402 if not even one can).
    async (request) => deps.operations.fetchMany(request.caller, request.body, inBody),
  );
};
