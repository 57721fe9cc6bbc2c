// The one place errors become HTTP responses: framework errors are translated, then errors.ts renders them, with the
// request id in the body; an unforeseen error is logged once, with its cause.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toValidationIssues } from '../contract/issues.js';
import { AppError, ValidationError, renderError } from '../errors.js';
import { acceptsMedia } from './accept.js';
import { storeOutageOf } from '../operations/store-outage.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error behind a 5xx answer, for the request's log line. */
    failure?: unknown;
  }
  interface FastifyContextConfig {
    /** Errors as text/plain for callers that accept text/* and not JSON (GET /r/, read by people and curl). */
    plainTextErrors?: boolean;
  }
}

function wantsPlainText(accept: string | undefined): boolean {
  return (
    (acceptsMedia(accept, 'text/plain') || acceptsMedia(accept, 'text/markdown')) &&
    !acceptsMedia(accept, 'application/json')
  );
}

/** The error as a few lines of text: what went wrong (each faulty field for a 422), then the request id. */
function errorAsText(status: number, body: ReturnType<typeof renderError>['body'], requestId: string): string {
  const head = Array.isArray(body.detail)
    ? [`${status} validation_error`, ...body.detail.map((i) => `${i.loc.join('.')}: ${i.msg}`)]
    : [`${status} ${(body as { code: string }).code}: ${body.detail}`];
  return `${head.join('\n')}\nrequest id: ${requestId}\n`;
}

function translate(error: FastifyError): unknown {
  const outage = storeOutageOf(error);
  if (outage) return outage;
  if (error.validation)
    return new ValidationError(toValidationIssues(error.validation, error.validationContext ?? 'body'));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ValidationError.single(['body', 0], `JSON decode error: ${error.message}`, 'json_invalid');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ValidationError.single(['body'], 'Field required', 'missing');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'the request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'send the request body as application/json');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return new AppError('bad_request', error.message);
  return error;
}

/**
 * The error handler. Also Fastify's `frameworkErrors` (app.ts), for what the router refuses before any route: a path
 * that is not valid percent-encoding, a path parameter over its length limit.
 */
export function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const translated = translate(error);
  const { status, body } = renderError(translated);
  // Logged once, on the request's own line (request-log.ts), with the cause chain.
  if (status >= 500) request.failure = translated;
  if (translated instanceof AppError && translated.options.headers) void reply.headers(translated.options.headers);
  if (request.routeOptions.config?.plainTextErrors && wantsPlainText(request.headers.accept)) {
    void reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .send(errorAsText(status, body, request.id));
    return;
  }
  void reply.code(status).send({ ...body, request_id: request.id });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      detail: `no route for ${request.method} ${request.url.split('?')[0]}`,
      code: 'not_found',
      request_id: request.id,
    });
  });
}
