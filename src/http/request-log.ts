// The request log: one line per finished request, at a level that follows its outcome. Successful answers are logged
// at debug, so at the default level (info) a busy server writes nothing per request that went well: Fastify's own
// pair of info lines per request (incoming, completed) cost more than the rest of a cached /fetch
// (docs/benchmarks-log.md).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const SEVERITY: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

type Level = 'debug' | 'info' | 'error';

export class RequestLog extends LogController {
  /** The request is logged once, with its outcome, in requestCompleted. */
  override incomingRequest(): void {}

  /** Below 400 at debug, 4xx at info, 5xx and responses that failed while being written at error. */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const status = reply.statusCode;
    const level: Level = error || status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    // Checked first so that a line below the logger's level costs no allocation ('silent' is not in the table).
    if (!(SEVERITY[level]! >= (SEVERITY[reply.log.level] ?? Infinity))) return;
    const failure = error ?? request.failure;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime, ...(failure ? { err: failure } : {}) };
    reply.log[level](fields, error ? 'request errored' : 'request completed');
  }
}
