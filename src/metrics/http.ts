// GET /metrics in the Prometheus text format, and the per-request count and latency by route and status. The page is
// for the operator's scraper: a bearer METRICS_TOKEN when one is set, otherwise callers on this machine only.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { httpDuration, registry } from './registry.js';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Without a token: the socket's peer and the client it forwards for (behind a local load balancer) are loopback. */
function allowed(request: FastifyRequest, token: string | undefined): boolean {
  if (token === undefined) return LOOPBACK.test(request.socket.remoteAddress ?? '') && LOOPBACK.test(request.ip);
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match !== null && sameSecret(match[1]!, token);
}

export function registerMetrics(app: FastifyInstance, options: { token?: string }): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request shows in the profile.
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    };
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request, options.token)) {
      const detail = options.token
        ? 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>'
        : 'GET /metrics answers loopback callers only (set METRICS_TOKEN to scrape it remotely)';
      throw new AppError('invalid_admin_token', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
