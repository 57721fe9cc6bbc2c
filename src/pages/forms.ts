// The HTML forms of the signed-in pages (dashboard, consent): url-encoded bodies, and the cross-site check every
// cookie-authenticated POST passes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseCrossSite } from '../http/session.js';

type Form = Record<string, string | undefined>;

/** For a plugin's scope: its POSTs are forms, from this site only. */
export function acceptForms(app: FastifyInstance, publicBaseUrl: string): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST') refuseCrossSite(request, publicBaseUrl);
  });
}

/** A form field, trimmed ('' when absent). */
export const field = (request: FastifyRequest, name: string) =>
  ((request.body as Form | undefined)?.[name] ?? '').trim();
