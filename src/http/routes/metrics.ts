// GET /metrics in the Prometheus text format, for the operator's scraper: a bearer METRICS_TOKEN when one is set,
// otherwise callers on this machine only. Wrong tokens are throttled like admin tokens (operations/limits.ts).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { registry } from '../../metrics/registry.js';
import type { AppDeps } from '../app-deps.js';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** The socket's peer and the client it forwards for (behind a local load balancer) are both loopback. */
const fromThisMachine = (request: FastifyRequest) =>
  LOOPBACK.test(request.socket.remoteAddress ?? '') && LOOPBACK.test(request.ip);

export const metricsRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  const token = deps.config.METRICS_TOKEN;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token === undefined) {
      if (!fromThisMachine(request)) {
        const detail = 'GET /metrics answers loopback callers only (set METRICS_TOKEN to scrape it remotely)';
        throw new AppError('invalid_admin_token', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
      }
    } else {
      // The token is the operator's choice: a client past its failures is refused before the comparison.
      const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      await deps.operations.limits.checkOperatorToken(
        'metrics_token',
        request.ip,
        presented,
        token,
        () =>
          new AppError('invalid_admin_token', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {
            headers: { 'WWW-Authenticate': 'Bearer' },
          }),
      );
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
};
