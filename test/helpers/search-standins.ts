// Stand-ins for the search providers on 127.0.0.1, answering in each provider's real JSON format (SearXNG's
// /search?format=json and Brave's /res/v1/web/search), with switches for the ways a real provider fails.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinHit {
  title: string;
  url: string;
  snippet: string;
}

/** ok: normal answers; error: HTTP 500; garbage: a 200 that is not JSON; slow: answers after 2 s. */
export type StandinMode = 'ok' | 'error' | 'garbage' | 'slow';

export interface SearchStandin {
  origin: string;
  requests: { path: string; query: URLSearchParams; headers: IncomingHttpHeaders }[];
  /** What the next searches answer; by default the hits given at start. */
  setHits(hits: StandinHit[]): void;
  setMode(mode: StandinMode): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' });
  res.end(text);
}

async function startStandin(
  handle: (
    path: string,
    query: URLSearchParams,
    headers: IncomingHttpHeaders,
    hits: StandinHit[],
    res: ServerResponse,
  ) => void,
  initial: StandinHit[],
): Promise<SearchStandin> {
  let hits = initial;
  let mode: StandinMode = 'ok';
  const requests: SearchStandin['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin.invalid');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    if (mode === 'error') return send(res, 500, { error: 'internal' });
    if (mode === 'garbage') return send(res, 200, '<html><body>Service temporarily unavailable</body></html>');
    if (mode === 'slow')
      return void setTimeout(() => handle(url.pathname, url.searchParams, req.headers, hits, res), 2000);
    handle(url.pathname, url.searchParams, req.headers, hits, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    setHits: (next) => (hits = next),
    setMode: (next) => (mode = next),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** SearXNG: GET /search?q=…&format=json; 403 unless format=json (as an instance without the json format enabled). */
export function startSearxngStandin(hits: StandinHit[]): Promise<SearchStandin> {
  return startStandin((path, query, _headers, current, res) => {
    if (path !== '/search') return send(res, 404, '<html>Not Found</html>');
    if (query.get('format') !== 'json') return send(res, 403, '<html>Forbidden</html>');
    const q = query.get('q') ?? '';
    send(res, 200, {
      query: q,
      number_of_results: 0,
      results: current.map((hit, i) => ({
        url: hit.url,
        title: hit.title,
        content: hit.snippet,
        publishedDate: null,
        thumbnail: '',
        engine: 'duckduckgo',
        template: 'default.html',
        parsed_url: [
          new URL(hit.url).protocol.replace(':', ''),
          new URL(hit.url).host,
          new URL(hit.url).pathname,
          '',
          '',
          '',
        ],
        img_src: '',
        priority: '',
        engines: ['duckduckgo', 'brave'],
        positions: [i + 1],
        score: 2 / (i + 1),
        category: 'general',
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [`${q} guide`],
      unresponsive_engines: [],
    });
  }, hits);
}

/**
 * Brave: GET /res/v1/web/search?q=…&count=N with X-Subscription-Token; 422 for a count over 20, 401 for a wrong key.
 */
export function startBraveStandin(hits: StandinHit[], apiKey: string): Promise<SearchStandin> {
  return startStandin((path, query, headers, current, res) => {
    if (path !== '/res/v1/web/search')
      return send(res, 404, { type: 'ErrorResponse', error: { status: 404, code: 'NOT_FOUND', detail: 'Not found' } });
    if (headers['x-subscription-token'] !== apiKey) {
      return send(res, 401, {
        type: 'ErrorResponse',
        error: {
          id: 'c1c4a3a7',
          status: 401,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
          meta: { component: 'authentication' },
        },
        time: 1700000000,
      });
    }
    const count = Number(query.get('count') ?? '20');
    if (!(count >= 1 && count <= 20))
      return send(res, 422, {
        type: 'ErrorResponse',
        error: { status: 422, code: 'VALIDATION', detail: 'Unable to validate request parameter(s)' },
      });
    const q = query.get('q') ?? '';
    const body: Record<string, unknown> = {
      query: {
        original: q,
        show_strict_warning: false,
        is_navigational: false,
        is_news_breaking: false,
        spellcheck_off: true,
        country: 'us',
        bad_results: false,
        should_fallback: false,
        postal_code: '',
        city: '',
        header_country: '',
        more_results_available: true,
        state: '',
      },
      mixed: {
        type: 'mixed',
        main: current.slice(0, count).map((_, index) => ({ type: 'web', index, all: false })),
        top: [],
        side: [],
      },
      type: 'search',
    };
    // Brave leaves out the web section when nothing was found.
    if (current.length > 0) {
      body.web = {
        type: 'search',
        results: current.slice(0, count).map((hit) => {
          const url = new URL(hit.url);
          return {
            title: hit.title,
            url: hit.url,
            is_source_local: false,
            is_source_both: false,
            description: hit.snippet,
            profile: { name: url.host, url: hit.url, long_name: url.host, img: '' },
            language: 'en',
            family_friendly: true,
            type: 'search_result',
            subtype: 'generic',
            is_live: false,
            meta_url: {
              scheme: url.protocol.replace(':', ''),
              netloc: url.host,
              hostname: url.hostname,
              favicon: '',
              path: `› ${url.pathname.slice(1)}`,
            },
          };
        }),
        family_friendly: true,
      };
    }
    send(res, 200, body);
  }, hits);
}
