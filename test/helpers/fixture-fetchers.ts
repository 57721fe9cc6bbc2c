// Loopback fixtures for the fetchers and the router: app shells and the short real pages that must not go to the
// browser, PDFs (by extension, by content type only, scanned), bot challenges, robots.txt, pages that try to reach a
// second loopback address from inside the browser, and a Jina-style reader provider stand-in.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeReportPdf, makeScannedPdf } from './pdf-fixtures.js';

const PARAGRAPHS = [
  'Tomatoes need at least six hours of direct sun every day, which makes a south-facing ' +
    'balcony the best place for them.',
  'Water deeply but not too often: the soil should dry a little between waterings so the roots grow down.',
  'Harvest when the fruit is fully coloured and slightly soft to the touch; tomatoes keep ripening indoors.',
];

/** The script of the app shell: fetches its data, then renders after a pause, as a client-side app does. */
const APP_JS = `
fetch('/api/article.json').then((r) => r.json()).then((data) => setTimeout(() => {
  const root = document.getElementById('root');
  root.innerHTML = '<article><h1>' + data.title + '</h1>' + data.paragraphs.map((p) => '<p>' + p + '</p>').join('') + '</article>';
}, 150));`;

export const APP_SHELL_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React App</title>
<style>@font-face { font-family: Shell; src: url(/font.woff2); } body { font-family: Shell; }</style>
<script defer src="/app.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><img src="/pixel.png" alt=""></body></html>`;

/** No mount point, no noscript: a body that is only a script writing the page. */
const INLINE_SHELL_HTML = `<!doctype html><html><head><title>Loading</title></head><body><script>
document.addEventListener('DOMContentLoaded', () => {
  document.body.innerHTML = '<main><h1>Inline Rendered Story</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}</main>';
});
</script></body></html>`;

/** Short but real: a sentence, no scripts. */
const SHORT_REAL_HTML = `<!doctype html><html><head><title>Subscribed</title></head><body><main><h1>Subscribed</h1>
<p>Thanks, you are now subscribed to the balcony gardening newsletter. The first issue arrives on Monday.</p></main></body></html>`;

/** Short but real, with the analytics every site has: an inline snippet and an external tag. */
const SHORT_ANALYTICS_HTML = `<!doctype html><html><head><title>Page moved</title>
<script async src="https://analytics.invalid/gtag.js"></script>
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);} gtag('js', new Date()); gtag('config', 'G-XXXX');</script>
</head><body><div id="root"><p>This guide has moved to the new tomato section of the site; the old address will keep working for a year.</p></div></body></html>`;

/** Server-rendered Next.js: content in __next, plus a large data island and bundles. Not a shell. */
const SSR_NEXT_HTML = `<!doctype html><html><head><title>Server Rendered Guide</title><script src="/_next/static/chunks/main.js" defer></script></head>
<body><div id="__next"><article><h1>Server Rendered Guide</h1>${PARAGRAPHS.map((p) => `<p>${p} ${p}</p>`).join('')}</article></div>
<script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps: { blob: 'x'.repeat(40_000) } } })}</script></body></html>`;

const CHALLENGE_HTML = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper"><div class="main-content">
<h1 class="zone-name-title h1">example.com</h1><h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<noscript><div class="h2">Enable JavaScript and cookies to continue</div></noscript></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cType: 'managed'};var a=document.createElement('script');a.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1';document.getElementsByTagName('head')[0].appendChild(a);}());</script>
</body></html>`;

const ARTICLE_HTML = `<!doctype html><html lang="en"><head><title>Plain Article</title></head><body><article><h1>Plain Article</h1>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`;

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(buffer.length),
    ...headers,
  });
  res.end(buffer);
}

interface Counted {
  origin: string;
  url(path: string): string;
  hits(path?: string): number;
  close(): Promise<void>;
}

async function serve(
  handle: Handler,
  host = '127.0.0.1',
  onUpgrade?: () => void,
): Promise<Counted & { server: Server }> {
  const hits = new Map<string, number>();
  let total = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture.invalid');
    total++;
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    Promise.resolve(handle(req, res, url)).catch(() => res.destroy());
  });
  server.on('upgrade', (req, socket) => {
    total++;
    const path = new URL(req.url ?? '/', 'http://fixture.invalid').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    onUpgrade?.();
    socket.destroy();
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    server,
    origin,
    url: (path) => origin + path,
    hits: (path) => (path === undefined ? total : (hits.get(path) ?? 0)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface FetcherSite extends Counted {
  /** What /robots.txt answers: a body (200), or a status alone. */
  setRobots(robots: { status: number; body?: string } | null): void;
}

/**
 * The fixture website of the fetcher tests. `secret` is where the SSRF pages try to reach (a second loopback server).
 */
export async function startFetcherSite(options: { secret?: string } = {}): Promise<FetcherSite> {
  const [report, scanned] = await Promise.all([makeReportPdf(), makeScannedPdf()]);
  let robots: { status: number; body?: string } | null = null;
  const secret = options.secret ?? 'http://127.0.0.2:9/secret';
  const ssrfPage = (target: string) => `<!doctype html><html><head><title>Curious Page</title>
<script src="${target}/script.js"></script><link rel="stylesheet" href="${target}/style.css"></head><body><article><h1>Curious Page</h1>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('')}<p id="result">pending</p>
<img src="${target}/img.png"><iframe src="${target}/frame"></iframe></article>
<script>
const out = document.getElementById('result');
fetch('${target}/fetch').then((r) => r.text()).then((t) => { out.textContent = 'LEAKED ' + t; }, () => { out.textContent = 'fetch refused'; });
const x = new XMLHttpRequest(); x.open('GET', '${target}/xhr'); x.onload = () => { out.textContent += ' LEAKED-XHR ' + x.responseText; }; x.send();
try { const ws = new WebSocket('${target.replace('http', 'ws')}/ws'); ws.onopen = () => { out.textContent += ' LEAKED-WS'; }; } catch (e) {}
</script></body></html>`;

  const routes: Record<string, Handler> = {
    '/robots.txt': (_req, res) =>
      robots
        ? send(res, robots.status, robots.body ?? '', { 'content-type': 'text/plain' })
        : send(res, 404, 'not found'),
    '/article': (_req, res) => send(res, 200, ARTICLE_HTML),
    '/app-shell': (_req, res) => send(res, 200, APP_SHELL_HTML),
    '/app.js': (_req, res) => send(res, 200, APP_JS, { 'content-type': 'text/javascript' }),
    '/api/article.json': (_req, res) =>
      send(res, 200, JSON.stringify({ title: 'Rendered by Script', paragraphs: PARAGRAPHS }), {
        'content-type': 'application/json',
      }),
    '/pixel.png': (_req, res) => send(res, 200, Buffer.from([0x89, 0x50, 0x4e, 0x47]), { 'content-type': 'image/png' }),
    '/font.woff2': (_req, res) => send(res, 200, Buffer.from('wOF2'), { 'content-type': 'font/woff2' }),
    '/inline-shell': (_req, res) => send(res, 200, INLINE_SHELL_HTML),
    '/short-real': (_req, res) => send(res, 200, SHORT_REAL_HTML),
    '/short-analytics': (_req, res) => send(res, 200, SHORT_ANALYTICS_HTML),
    '/ssr-next': (_req, res) => send(res, 200, SSR_NEXT_HTML),
    '/empty': (_req, res) =>
      send(res, 200, '<!doctype html><html><head><title>Nothing</title></head><body></body></html>'),
    '/report.pdf': (_req, res) => send(res, 200, report, { 'content-type': 'application/pdf' }),
    '/download': (_req, res) =>
      send(res, 200, report, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment' }),
    '/scanned.pdf': (_req, res) => send(res, 200, scanned, { 'content-type': 'application/pdf' }),
    '/challenge': (_req, res) => send(res, 403, CHALLENGE_HTML, { 'cf-mitigated': 'challenge', server: 'cloudflare' }),
    '/challenge-200': (_req, res) => send(res, 200, CHALLENGE_HTML),
    '/forbidden': (_req, res) => send(res, 403, '<html><body><h1>Forbidden</h1></body></html>'),
    '/ssrf': (_req, res) => send(res, 200, ssrfPage(secret)),
    '/ws-page': (_req, res, url) => send(res, 200, ssrfPage(url.searchParams.get('target') ?? secret)),
    // Loads, then blocks its main thread for good: only closing the page gets the browser back.
    '/busy-loop': (_req, res) =>
      send(
        res,
        200,
        `<html><body><article><h1>Busy</h1><p>${PARAGRAPHS[0]}</p></article><script>addEventListener('DOMContentLoaded', ` +
          `() => setTimeout(() => { for (;;) {} }, 50));</script></body></html>`,
      ),
    '/redirect': (_req, res, url) => {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), {
        location: url.searchParams.get('to') ?? '/article',
      });
      res.end();
    },
    // Redirects every client but Fetchdown, which it refuses: what only the reader provider is shown.
    '/redirect-others': (req, res, url) => {
      if ((req.headers['user-agent'] ?? '').startsWith('FetchdownBot'))
        return send(res, 403, '<html><body><h1>Forbidden</h1></body></html>');
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/article' });
      res.end();
    },
    // Client-side navigations, which only a browser follows: after the page has loaded, and before it has.
    '/script-redirect': (_req, res, url) =>
      send(
        res,
        200,
        `<html><body><article><h1>Moving</h1><p>${PARAGRAPHS[0]}</p></article><script>setTimeout(() ` +
          `=> { location.href = ${JSON.stringify(url.searchParams.get('to') ?? '/article')}; }, ` +
          `50);</script></body></html>`,
      ),
    '/meta-refresh': (_req, res, url) =>
      send(
        res,
        200,
        `<html><head><meta http-equiv="refresh" content="0; ` +
          `url=${url.searchParams.get('to') ?? '/article'}"></head><body><p>${PARAGRAPHS[1]}</p></body></html>`,
      ),
    // One caller's page leaves a cookie and local storage behind; the next caller's page shows what it can see.
    '/set-state': (_req, res) =>
      send(
        res,
        200,
        `<html><body><article><h1>Setting ` +
          `state</h1><p>${PARAGRAPHS[0]}</p><script>localStorage.setItem('who', 'first-caller'); ` +
          `sessionStorage.setItem('who', 'first-caller');</script></article></body></html>`,
        {
          'set-cookie': 'who=first-caller; Path=/',
        },
      ),
    '/show-state': (req, res) =>
      send(
        res,
        200,
        `<html><body><article><h1>State seen</h1><p>${PARAGRAPHS[1]}</p><p ` +
          `id="s">server-cookie=${req.headers.cookie ?? 'none'}</p><script>document.getElementById('s').textContent ` +
          `+= ' local=' + (localStorage.getItem('who') ?? 'none') + ' session=' + ` +
          `(sessionStorage.getItem('who') ?? 'none');</script></article></body></html>`,
      ),
  };
  const site = await serve((req, res, url) => {
    const route = routes[url.pathname];
    if (route) return route(req, res, url);
    if (url.pathname.startsWith('/ssrf-to/'))
      return send(res, 200, ssrfPage(decodeURIComponent(url.pathname.slice('/ssrf-to/'.length))));
    send(res, 404, '<html><body><h1>Not found</h1></body></html>');
  });
  return { ...site, setRobots: (next) => void (robots = next) };
}

/** A server standing for an internal service the browser must never reach (bind it to 127.0.0.2). */
export async function startSecretServer(host = '127.0.0.2'): Promise<Counted> {
  return serve(
    (_req, res) =>
      send(res, 200, 'TOP-SECRET-INTERNAL', { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }),
    host,
  );
}

export interface ReaderStandIn extends Counted {
  /** The value for READER_BASE_URL (ends with a slash: the target URL is appended as is). */
  baseUrl: string;
  /** Target URLs asked for, in order. */
  requested: string[];
  /** False: `data.url` is the URL it was asked for, not where the redirects it followed ended (true at start). */
  setReportsFinalUrl(reports: boolean): void;
}

/**
 * A Jina-Reader-compatible provider: GET `${base}${url}` with `Authorization: Bearer <key>` and
 * `Accept: application/json` → `{code: 200, status: 20000, data: {title, description, url, content,
 * publishedTime}}`. Targets whose URL contains "reader-down" get a 503, a wrong key a 401. A target on a `/redirect…`
 * path is fetched for real and its redirects followed, as a self-hosted reader without an SSRF guard of its own does;
 * the final URL is reported unless setReportsFinalUrl(false).
 */
export async function startReaderStandIn(apiKey: string): Promise<ReaderStandIn> {
  const requested: string[] = [];
  let reportsFinalUrl = true;
  const server = await serve(async (req, res, url) => {
    const target = decodeURIComponent((req.url ?? '/').slice('/r/'.length));
    requested.push(target);
    const json = (status: number, body: unknown) =>
      send(res, status, JSON.stringify(body), { 'content-type': 'application/json' });
    if (req.headers.authorization !== `Bearer ${apiKey}`)
      return json(401, { code: 401, readableMessage: 'AuthenticationRequiredError: invalid API key' });
    // eslint-disable-next-line no-restricted-syntax -- the stand-in is as lax as the provider it imitates
    if (!(req.headers.accept ?? '').includes('application/json'))
      return json(400, { code: 400, readableMessage: 'send Accept: application/json' });
    if (!url.pathname.startsWith('/r/')) return json(404, { code: 404 });
    if (target.includes('reader-down')) return json(503, { code: 503, readableMessage: 'upstream overloaded' });
    if (new URL(target).pathname.startsWith('/redirect')) {
      const followed = await fetch(target);
      const url = reportsFinalUrl ? followed.url : target;
      return json(200, {
        code: 200,
        status: 20000,
        data: { title: 'Followed', description: '', url, content: await followed.text() },
      });
    }
    json(200, {
      code: 200,
      status: 20000,
      data: {
        title: 'Reader Copy',
        description: 'Fetched by the reader provider.',
        url: target,
        content: `Fetched through the reader provider for ${target}.\n\n${PARAGRAPHS.join('\n\n')}`,
        publishedTime: 'Mon, 04 May 2026 06:30:00 GMT',
      },
    });
  });
  return {
    ...server,
    baseUrl: `${server.origin}/r/`,
    requested,
    setReportsFinalUrl: (reports) => void (reportsFinalUrl = reports),
  };
}
