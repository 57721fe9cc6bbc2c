// Graceful drain for a process behind a load balancer: on drain() the listener closes (new connections go to the
// other processes), /ready answers 503, requests still arriving on open keep-alive connections are served with
// `Connection: close` (so the balancer never reuses a socket we are about to close), and it resolves once every
// connection has ended or the deadline has passed.
import { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { trackHttpInFlight } from '../metrics/registry.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Stops taking new work and waits (up to deadlineMs) for what is in flight; then app.close() ends the rest. */
    drain(deadlineMs: number): Promise<{ inFlight: number; connections: number }>;
  }
}

/** An idle keep-alive connection left after this long with nothing in flight is closed by us. */
const QUIET_MS = 1000;
const POLL_MS = 50;

export function registerDrain(app: FastifyInstance): void {
  let draining = false;
  let inFlight = 0;
  let lastActivity = performance.now();

  const finished = () => {
    inFlight--;
    lastActivity = performance.now();
  };
  const untrack = trackHttpInFlight(() => inFlight);
  app.addHook('onClose', (_app, done) => {
    untrack();
    done();
  });

  // A callback hook with one shared listener: it runs on every request, where a promise or closure each shows.
  app.addHook('onRequest', (request, reply, done) => {
    inFlight++;
    lastActivity = performance.now();
    reply.raw.on('close', finished);
    if (!draining) return done();
    void reply.header('connection', 'close');
    if (request.url !== '/ready') return done();
    void reply.code(503).send({
      status: 'unavailable',
      checks: { draining: { ok: false, ms: 0, detail: 'shutting down: finishing the requests in flight' } },
    });
  });

  const connections = () =>
    new Promise<number>((resolve) => app.server.getConnections((_error, count) => resolve(count ?? 0)));

  app.decorate('drain', async (deadlineMs: number) => {
    draining = true;
    // net.Server's close stops accepting but, unlike http.Server's, leaves idle keep-alive sockets open: closing one
    // while the balancer sends a request on it would fail that request.
    Server.prototype.close.call(app.server);
    const deadline = performance.now() + deadlineMs;
    let open = await connections();
    while (open > 0 && performance.now() < deadline) {
      if (inFlight === 0 && performance.now() - lastActivity > QUIET_MS) app.server.closeIdleConnections();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      open = await connections();
    }
    return { inFlight, connections: open };
  });
}
