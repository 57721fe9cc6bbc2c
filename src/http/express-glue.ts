// The MCP SDK's OAuth handlers are Express routers. This hands them the requests of their paths unread (they parse
// their own bodies) and keeps our rules on what they answer: errors carry the request id; a body that cannot be
// parsed is the RFC's JSON invalid_request, not Express's HTML page; and the 500 they give for anything but an OAuth
// error (our store down: every refusal we foresee is an OAuth error) is the server's trouble, a retryable 503.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from './request-id.js';

const RETRY_AFTER_SECONDS = '5';

const isError = (body: unknown): body is { error: string } =>
  typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';

export async function mountExpress(app: FastifyInstance, routes: Record<string, RequestHandler>): Promise<void> {
  const handler = express();
  handler.disable('x-powered-by');
  // Every answer of ours names its request: the SDK's JSON errors get the id the response header already carries.
  handler.use((_request, response, next) => {
    const json = response.json.bind(response);
    response.json = (body: unknown) =>
      json(isError(body) ? { ...body, request_id: response.getHeader(REQUEST_ID_HEADER) } : body);
    next();
  });
  for (const [path, router] of Object.entries(routes)) handler.use(path, router);
  const unreadable: ErrorRequestHandler = (error: { status?: number; message?: string }, _request, response, _next) => {
    response
      .status(error.status && error.status < 500 ? error.status : 400)
      .json({ error: 'invalid_request', error_description: `the request body could not be read: ${error.message}` });
  };
  handler.use(unreadable);

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const path of Object.keys(routes)) {
      scope.all(path, { schema: { hide: true } }, (request, reply) => {
        reply.hijack();
        const raw = reply.raw;
        raw.setHeader(REQUEST_ID_HEADER, request.id);
        const writeHead = raw.writeHead.bind(raw) as (status: number, ...rest: unknown[]) => typeof raw;
        raw.writeHead = (status: number, ...rest: unknown[]) => {
          if (status !== 500) return writeHead(status, ...rest);
          raw.setHeader('retry-after', RETRY_AFTER_SECONDS);
          return writeHead(503, ...rest);
        };
        handler(request.raw as express.Request, raw as express.Response);
      });
    }
  });
}
