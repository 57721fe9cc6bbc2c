// Request ids: an incoming X-Request-Id is kept when it is a plausible id (so a load balancer's or client's id follows
// the request through our logs), else one is made; every response carries it, and error bodies repeat it.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
const PLAUSIBLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's genReqId: the caller's id when it is safe to log and echo, else a new UUID. */
export function requestIdOf(request: { headers: FastifyRequest['headers'] }): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  const id = Array.isArray(sent) ? sent[0] : sent;
  return id !== undefined && PLAUSIBLE_ID.test(id) ? id : randomUUID();
}

export function echoRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
