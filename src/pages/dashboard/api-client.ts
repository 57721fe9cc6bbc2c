// The dashboard speaks only the public API: each page and form calls the JSON routes in-process (app.inject) with
// the visitor's cookie and address, so it gets the same checks, limits and answers as any client and cannot drift.
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface ApiAnswer {
  status: number;
  body: any;
  /** The Set-Cookie the API answered with (sign-out, a cleared stale session), to pass on to the browser. */
  setCookie: string | undefined;
}

export type ApiClient = (
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options?: { body?: unknown; apiKey?: string },
) => Promise<ApiAnswer>;

export function apiClientFor(app: FastifyInstance, request: FastifyRequest): ApiClient {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.headers.cookie) headers.cookie = request.headers.cookie;
    if (options.apiKey) headers['x-service-key'] = options.apiKey;
    const answer = await app.inject({
      method,
      url: path,
      headers,
      remoteAddress: request.ip,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
    let body: unknown;
    try {
      body = answer.json();
    } catch {
      body = undefined;
    }
    const setCookie = answer.headers['set-cookie'];
    return { status: answer.statusCode, body, setCookie: Array.isArray(setCookie) ? setCookie[0] : setCookie };
  };
}

/** The `detail` of an error answer as one sentence (422 details are lists). */
export function detailOf(answer: ApiAnswer): string {
  const detail = answer.body?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail
      .map((d: { msg?: string; loc?: unknown[] }) => `${(d.loc ?? []).slice(1).join('.')}: ${d.msg}`)
      .join('; ');
  return `the server answered ${answer.status}`;
}
