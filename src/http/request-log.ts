// The request log: one line per finished request, at a level that follows its outcome. Successful answers are logged
// at debug, so at the default level (info) a busy server writes nothing per request that went well: Fastify's own
// pair of info lines per request (incoming, completed) cost more than the rest of a cached /fetch
// (docs/benchmarks-log.md).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';

const SEVERITY: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Coded 5xx answers that are this server's own fault (its database or cache is gone), logged as errors. */
const OWN_FAULTS: ReadonlySet<ErrorCode> = new Set(['internal_error', 'store_unavailable', 'cache_unavailable']);

/**
 * A coded answer about something outside: a site that does not resolve or answers badly, a provider, a feature not
 * configured, a busy server. It is logged at warn by its code and detail, without a stack: an operator's error log
 * holds the server's own faults.
 */
function outsideOutcome(failure: unknown): failure is AppError {
  return failure instanceof AppError && !OWN_FAULTS.has(failure.code);
}

export class RequestLog extends LogController {
  /** The request is logged once, with its outcome, in requestCompleted. */
  override incomingRequest(): void {}

  /**
   * Below 400 at debug, 4xx at info, 5xx about the outside world at warn, the server's own faults and responses that
   * failed while being written at error.
   */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const status = reply.statusCode;
    const outside = !error && outsideOutcome(request.failure);
    const level: Level = error || status >= 500 ? (outside ? 'warn' : 'error') : status >= 400 ? 'info' : 'debug';
    // Checked first so that a line below the logger's level costs no allocation ('silent' is not in the table).
    if (!(SEVERITY[level]! >= (SEVERITY[reply.log.level] ?? Infinity))) return;
    const failure = error ?? request.failure;
    const err = outsideOutcome(failure) ? { code: failure.code, detail: failure.detail } : failure;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime, ...(failure ? { err } : {}) };
    reply.log[level](fields, error ? 'request errored' : 'request completed');
  }
}
