// A website to map and crawl, on 127.0.0.1 (and 127.0.0.2, standing for a private network), for the crawl tests and
// the crawl benchmark. One server answers several host names, told apart by the Host header; the tests' DNS
// (createTestDns(CRAWL_SITE_RECORDS)) sends the names here. The documents are in crawl-site-pages.ts.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { createCrawlSiteCounters, type CrawlSiteStats } from './crawl-site-counters.js';
import * as pages from './crawl-site-pages.js';

export type { CrawlSiteStats } from './crawl-site-counters.js';
export { docChildren, docDepth, docMarker, docTitle } from './crawl-site-pages.js';

/**
 * The names the site answers to and the address of each. site.test holds the documentation; slow.site.test the same
 * documents, each answered late; www. and blog.site.test a few pages of subdomains; other.test another site;
 * private.test (127.0.0.2) an internal service that the guard must keep every crawl from.
 */
export const CRAWL_SITE_RECORDS = {
  'site.test': ['127.0.0.1'],
  'slow.site.test': ['127.0.0.1'],
  'www.site.test': ['127.0.0.1'],
  'blog.site.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  'private.test': ['127.0.0.2'],
} as const satisfies Record<string, readonly string[]>;

export type CrawlSiteHost = keyof typeof CRAWL_SITE_RECORDS;

export interface CrawlSiteOptions {
  /** How many articles, /docs/1 to /docs/<pages> (30); made on request, so 10,000 or 50,000 cost nothing up front. */
  pages?: number;
  /** Milliseconds every answer of every host but slow.site.test waits before it starts (0). */
  delayMs?: number;
  /** Milliseconds every answer of slow.site.test waits before it starts, robots.txt and sitemaps included (200). */
  slowHostDelayMs?: number;
  /** The `Crawl-delay` of robots.txt on site.test and slow.site.test, in seconds (0). */
  crawlDelaySeconds?: number;
  /**
   * The name site.test answers to and links under (site.test): the benchmark's worker processes resolve names with
   * the system's resolver, so it serves the documentation as `localhost`.
   */
  siteName?: string;
}

export interface CrawlSite {
  port: number;
  /** `http://<host>:<port>`, site.test's by default. */
  origin(host?: CrawlSiteHost): string;
  /** A copy of the counters since the start or the last reset(). */
  stats(): CrawlSiteStats;
  reset(): void;
  close(): Promise<void>;
}

interface Answer {
  status?: number;
  type: string;
  body: string | Buffer;
  location?: string;
}

const html = (body: string, status = 200): Answer => ({ status, type: 'text/html; charset=utf-8', body });
const text = (body: string): Answer => ({ type: 'text/plain; charset=utf-8', body });
const xml = (body: string): Answer => ({ type: 'application/xml; charset=utf-8', body });
const NOT_FOUND = html('<!doctype html><html><head><title>Not found</title></head><body>Not found</body></html>', 404);

type Answerer = (url: URL) => Answer | undefined;

/** What each host serves. `origin` gives a name's origin once the port is known. */
function createAnswerers(site: Required<CrawlSiteOptions>, origin: (host: string) => string) {
  // Each host's own origin in its absolute links, so slow.site.test's stay on slow.site.test.
  const docs =
    (host: CrawlSiteHost): Answerer =>
    (url) => {
      const own = origin(host);
      const count = (name: string) => Math.max(1, Number.parseInt(url.searchParams.get(name) ?? '', 10) || 1);
      switch (url.pathname) {
        case '/':
          return html(pages.homePage(own));
        case '/robots.txt':
          return text(pages.robotsTxt(own, site.crawlDelaySeconds));
        case '/sitemap_index.xml':
          return xml(pages.sitemapIndex(own));
        case '/sitemap-1.xml':
          return xml(pages.docSitemap(own, site.pages, 1));
        case '/sitemap-2.xml.gz':
          // A gzipped file, as sitemaps are stored: no Content-Encoding, the client gunzips it itself.
          return { type: 'application/gzip', body: gzipSync(pages.docSitemap(own, site.pages, 2)) };
        case '/llms.txt':
          return text(pages.llmsTxt(own, origin('blog.site.test')));
        case '/calendar':
          return html(pages.calendarPage(count('month')));
        case '/search':
          return html(pages.searchPage(count('q'), count('page')));
        case '/private-link':
          return html(pages.privateLinkPage(origin('private.test'), origin('127.0.0.2')));
        case '/redirect-private':
          return { status: 302, location: `${origin('private.test')}/secret`, ...text('') };
        case '/external':
          return html(
            pages.externalPage({
              other: origin('other.test'),
              blog: origin('blog.site.test'),
              www: origin('www.site.test'),
            }),
          );
      }
      const doc = /^\/(docs|dup)\/([1-9]\d*)\/?$/.exec(url.pathname);
      const i = Number(doc?.[2]);
      if (doc?.[1] === 'docs' && i <= site.pages) return html(pages.docPage(i, site.pages));
      if (doc?.[1] === 'dup' && i <= site.pages) return html(pages.dupPage(own, i));
      const admin = /^\/admin\/([a-z]+)\/?$/.exec(url.pathname);
      if (admin) return html(pages.adminPage(admin[1]!));
      if (/^\/loop(\/[ab])+$/.test(url.pathname)) return html(pages.loopPage(url.pathname));
      return undefined;
    };

  const blogPosts = [1, 2, 3].map((n): [string, string] => [`/posts/${n}`, `Blog post ${n}`]);
  const small =
    (routes: Record<string, () => Answer>): Answerer =>
    (url) =>
      routes[url.pathname]?.();
  const openRobots = () => text(pages.openRobotsTxt);

  return {
    'site.test': docs('site.test'),
    'slow.site.test': docs('slow.site.test'),
    'blog.site.test': small({
      '/robots.txt': openRobots,
      '/sitemap.xml': () =>
        xml(pages.urlSet(['/', ...blogPosts.map(([path]) => path)].map((p) => origin('blog.site.test') + p))),
      '/': () => html(pages.plainPage('The blog', blogPosts)),
      ...Object.fromEntries(
        blogPosts.map(([path, title]) => [path, () => html(pages.plainPage(title, [['/', 'The blog'], ...blogPosts]))]),
      ),
    }),
    'www.site.test': small({
      '/robots.txt': openRobots,
      '/welcome': () => html(pages.plainPage('Welcome', [[`${origin('site.test')}/`, 'Fixture Docs']])),
    }),
    'other.test': small({
      '/robots.txt': openRobots,
      '/': () => html(pages.plainPage('Another site', [['/page', 'A page']])),
      '/page': () => html(pages.plainPage('A page of another site', [[`${origin('site.test')}/`, 'Fixture Docs']])),
    }),
    'private.test': small({ '/secret': () => html(pages.secretPage()) }),
  } satisfies Record<CrawlSiteHost, Answerer>;
}

/** Which host a request is for: the private address is the internal service whatever name it was asked by. */
function hostOf(req: IncomingMessage, name: string): CrawlSiteHost | undefined {
  if (req.socket.localAddress === '127.0.0.2') return 'private.test';
  return Object.hasOwn(CRAWL_SITE_RECORDS, name) ? (name as CrawlSiteHost) : undefined;
}

/** One listener on 127.0.0.1 and one on 127.0.0.2, on the same port, so a name sent to either address lands here. */
async function listenOnBoth(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server[]> {
  for (let attempt = 1; ; attempt++) {
    const servers = [createServer(listener), createServer(listener)];
    for (const server of servers) server.keepAliveTimeout = 1000;
    servers[0]!.listen(0, '127.0.0.1');
    await once(servers[0]!, 'listening');
    const { port } = servers[0]!.address() as AddressInfo;
    try {
      servers[1]!.listen(port, '127.0.0.2');
      await once(servers[1]!, 'listening');
      return servers;
    } catch (error) {
      // The port is taken on 127.0.0.2 by something else: try another.
      servers[0]!.close();
      if (attempt === 5) throw error;
    }
  }
}

export async function startCrawlSite(options: CrawlSiteOptions = {}): Promise<CrawlSite> {
  const site: Required<CrawlSiteOptions> = {
    pages: 30,
    delayMs: 0,
    slowHostDelayMs: 200,
    crawlDelaySeconds: 0,
    siteName: 'site.test',
    ...options,
  };
  const counters = createCrawlSiteCounters();
  let port = 0;
  const origin = (host: string) => `http://${host === 'site.test' ? site.siteName : host}:${port}`;
  const answerers = createAnswerers(site, origin);

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://crawl-site.invalid');
    const name = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const host = hostOf(req, name === site.siteName ? 'site.test' : name);
    const outside = host === undefined || host === 'private.test' || host === 'other.test';
    const done = counters.arrive({
      host: name,
      url,
      outOfScope: outside ? `http://${req.headers.host}${url.pathname}${url.search}` : null,
      agent: req.headers['user-agent'] ?? '',
    });
    res.on('close', done);
    const delay = host === 'slow.site.test' ? site.slowHostDelayMs : site.delayMs;
    if (delay > 0) await sleep(delay);
    const found = (host && answerers[host](url)) ?? NOT_FOUND;
    res.writeHead(found.status ?? 200, {
      'content-type': found.type,
      'content-length': Buffer.byteLength(found.body),
      ...(found.location ? { location: found.location } : {}),
    });
    res.end(found.body);
  };

  const servers = await listenOnBoth((req, res) => void answer(req, res).catch(() => res.destroy()));
  port = (servers[0]!.address() as AddressInfo).port;
  return {
    port,
    origin: (host = 'site.test') => origin(host),
    stats: counters.stats,
    reset: counters.reset,
    close: async () => {
      await Promise.all(
        servers.map((server) => {
          server.closeAllConnections();
          return new Promise((resolve) => server.close(resolve));
        }),
      );
    },
  };
}
