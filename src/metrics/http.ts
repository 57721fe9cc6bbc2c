// The per-request count and latency by route and status (GET /metrics itself is src/http/routes/metrics.ts).
import type { FastifyInstance } from 'fastify';
import { httpDuration, noteWork } from './registry.js';

/** Requests that are not work: the scraper's and the balancer's probes, which come whether or not anyone is served. */
const PROBES = new Set(['/metrics', '/health', '/ready']);

export function countRequests(app: FastifyInstance): void {
  // Any other request starts the event-loop lag's sampling, which stops once requests stop (process.ts): an idle
  // server is not woken every 10 ms to measure a loop with nothing to delay.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!PROBES.has(request.routeOptions.url ?? '')) noteWork();
    done();
  });
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
