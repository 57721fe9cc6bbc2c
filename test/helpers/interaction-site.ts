// Loopback pages that need more than a load: text that appears late, "load more", a form, infinite scroll, a cookie
// wall, a page behind a cookie or a token, redirects and subresources to another origin, a page that echoes the
// device and language it was seen with, a slow app for starving the browser, and a page that never finishes. The
// other origin (another port) records every request's credential headers, so tests can prove what never reached it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SESSION_COOKIE = 'session=s3cr3t-cookie-value';
export const BEARER_TOKEN = 'Bearer t0ken-value-never-logged';
const SENTENCE =
  'Tomatoes need at least six hours of direct sun every day, which makes a south-facing balcony the best place for them.';

/** The text arrives a second (or `?ms=`) after the page: a selector or a pause must be waited for. */
const lateScript = (ms: number) =>
  `setTimeout(() => { document.getElementById('root').innerHTML = '<article><h1 id="ready">Arrived late</h1><p>${SENTENCE}</p><p>${SENTENCE}</p></article>'; }, ${ms});`;
/** An app whose data request takes 1.5 s: a browser given less time than that has only the skeleton. */
const SLOW_SCRIPT = `fetch('/api/slow').then((r) => r.json()).then((d) => { document.getElementById('root').innerHTML = '<article><h1>Slow app</h1><p>' + d.text + '</p><p>' + d.text + '</p></article>'; });`;

/** A page made for phones too: with a viewport meta a phone lays it out at its own width (not 980 px). */
const page = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${title}</title></head><body>${body}` +
  (script ? `<script>${script}</script>` : '') +
  '</body></html>';

const items = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `<li>Item number ${from + i}: ${SENTENCE}</li>`).join('');

export interface Received {
  path: string;
  cookie: string | undefined;
  authorization: string | undefined;
  custom: string | undefined;
}

export interface InteractionSite {
  origin: string;
  url(path: string): string;
  /** The other origin (same host, another port): what it received, with credential headers. */
  other: { origin: string; received: Received[] };
  /** Requests that reached the main site, with their credential headers. */
  received: Received[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

async function listen(handle: Handler): Promise<{ server: Server; origin: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    received.push({
      path: url.pathname,
      cookie: req.headers.cookie,
      authorization: req.headers.authorization,
      custom: req.headers['x-custom'] as string | undefined,
    });
    handle(req, res, url);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

function html(res: ServerResponse, body: string, status = 200, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}

export async function startInteractionSite(options: { secretOrigin?: string } = {}): Promise<InteractionSite> {
  const other = await listen((_req, res, url) => {
    if (url.pathname === '/script.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' });
      res.end('window.loadedFromOther = true;');
      return;
    }
    html(res, page('Landing', `<main><h1>Landing elsewhere</h1><p>${SENTENCE}</p><p>${SENTENCE}</p></main>`));
  });
  const main = await listen((req, res, url) => {
    const signedIn = req.headers.cookie?.includes(SESSION_COOKIE) || req.headers.authorization === BEARER_TOKEN;
    switch (url.pathname) {
      case '/late':
        return html(
          res,
          page('Late', '<div id="root"><p>Loading…</p></div>', lateScript(Number(url.searchParams.get('ms') ?? 1000))),
        );
      case '/more/items': {
        const from = Number(url.searchParams.get('from'));
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ html: items(from, from + 4) }));
      }
      case '/more':
        // ?delay=<ms>: the button's handler fetches that long after the click (debounced, as many are).
        return html(
          res,
          page(
            'Load more',
            `<main><h1>All the items</h1><ul id="list">${items(1, 5)}</ul><button id="more">Load more</button></main>`,
            `let next = 6; document.getElementById('more').addEventListener('click', async () => {
              await new Promise((resolve) => setTimeout(resolve, ${Number(url.searchParams.get('delay') ?? 0)}));
              const r = await fetch('/more/items?from=' + next); next += 5;
              document.getElementById('list').insertAdjacentHTML('beforeend', (await r.json()).html); });`,
          ),
        );
      case '/form':
        return html(
          res,
          page(
            'Search form',
            `<main><h1>Search the garden</h1><form action="/form/result" method="get"><input id="q" name="q">` +
              `<button type="submit">Search</button></form></main>`,
          ),
        );
      case '/form/result':
        return html(
          res,
          page(
            'Results',
            `<main><h1>You searched for ${String(url.searchParams.get('q')).replace(/[<&]/g, '')}</h1>` +
              `<p>${SENTENCE}</p><p>${SENTENCE}</p></main>`,
          ),
        );
      case '/infinite':
        return html(
          res,
          page(
            'Infinite',
            `<main><h1>Endless feed</h1><ul id="feed">${items(1, 10)}</ul><div style="height:2000px"></div></main>`,
            `let next = 11; let busy = false; window.addEventListener('scroll', async () => {
              if (busy || next > 50 || innerHeight + scrollY < document.body.scrollHeight - 100) return;
              busy = true; const r = await fetch('/more/items?from=' + next); next += 5;
              const more = (await r.json()).html; const r2 = await fetch('/more/items?from=' + next); next += 5;
              document.getElementById('feed').insertAdjacentHTML('beforeend', more + (await r2.json()).html); busy = false; });`,
          ),
        );
      case '/cookie-wall':
        return html(
          res,
          page(
            'Walled',
            `<div id="wall"><p>We use cookies.</p><button id="accept">Accept all</button></div><main id="main"></main>`,
            `document.getElementById('accept').addEventListener('click', () => {
              document.getElementById('wall').remove();
              document.getElementById('main').innerHTML = '<article><h1>Behind the wall</h1><p>${SENTENCE}</p><p>${SENTENCE}</p></article>'; });`,
          ),
        );
      case '/private':
        if (!signedIn) return html(res, page('Sign in', '<main><h1>Please sign in</h1></main>'), 401);
        return html(
          res,
          page('Members', `<main><h1>Members only</h1><p>The secret recipe: ${SENTENCE}</p><p>${SENTENCE}</p></main>`),
        );
      case '/private-redirect':
        res.writeHead(302, { location: `${other.origin}/landing` });
        return void res.end();
      case '/private-assets':
        return html(
          res,
          page(
            'Assets',
            `<main><h1>Page with assets</h1><p>${SENTENCE}</p><p>${SENTENCE}</p></main>` +
              `<script src="${other.origin}/script.js"></script>`,
            `fetch('${other.origin}/api').catch(() => {});`,
          ),
        );
      case '/whoami':
        return html(
          res,
          page(
            'Who am I',
            `<main><h1>Your view</h1><p id="lang">Accept-Language: ${req.headers['accept-language'] ?? 'none'}</p>` +
              `<p id="device"></p><p>${SENTENCE}</p></main>`,
            `document.getElementById('device').textContent = 'Width ' + innerWidth + ', agent ' + navigator.userAgent + ', language ' + navigator.language;`,
          ),
        );
      case '/go-secret':
        return html(
          res,
          page(
            'Links',
            `<main><h1>A link inside</h1><p>${SENTENCE}</p><a id="go" href="${options.secretOrigin ?? 'http://127.0.0.2:9'}/">Go</a></main>`,
          ),
        );
      case '/slow-app':
        return html(res, page('App', '<div id="root">Loading…</div>', SLOW_SCRIPT));
      case '/api/slow': {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ text: SENTENCE }));
        }, 1500);
        return;
      }
      case '/hang':
        // Headers and the start of a document, then nothing: only the caller's timeout ends the wait.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void res.write('<!doctype html><html><head><title>Hanging</title></head><body><p>Half');
      case '/tall':
        return html(res, page('Tall', `<main><h1>A tall page</h1><ul>${items(1, 120)}</ul></main>`));
      default:
        return html(res, page('Not found', '<p>nothing</p>'), 404);
    }
  });
  return {
    origin: main.origin,
    url: (path) => `${main.origin}${path}`,
    received: main.received,
    other: { origin: other.origin, received: other.received },
    close: async () => {
      main.server.closeAllConnections();
      other.server.closeAllConnections();
      await Promise.all([main.server, other.server].map((server) => new Promise((done) => server.close(done))));
    },
  };
}
