// What the request log shows of a request: the URL without secret query values (?token= of sign-in links and
// /admin/metrics; ?headers= and ?cookies=, credentials GET /r/ refuses to take from a URL). Headers are not logged at
// all (pino's default request serializer omits them).
import type { FastifyRequest } from 'fastify';

const SECRET_PARAMS = /([?&](?:token|key|api_key|headers|cookies)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]');
}

export function redactRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
