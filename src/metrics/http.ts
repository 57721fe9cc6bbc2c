// The per-request count and latency by route and status (GET /metrics itself is src/http/routes/metrics.ts).
import type { FastifyInstance } from 'fastify';
import { httpDuration } from './registry.js';

export function countRequests(app: FastifyInstance): void {
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
}
