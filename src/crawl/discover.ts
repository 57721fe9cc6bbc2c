// A site's URLs for POST /map: its sitemaps (robots.txt's Sitemap lines, or /sitemap.xml; indexes and gzipped ones
// streamed), its llms.txt and the start page's links, each URL once (normalised), in scope, with where it came from;
// ranked by relevance to `search` when there is one. Every request goes through the guarded client; the start page
// through the fetch service (the cache, robots.txt, the router).
import type { MapResult } from '../contract/crawl.js';
import type { SafeClient } from '../net/safe-client.js';
import type { FetchService } from '../services/fetch-service.js';
import { linksFromHtml } from './links.js';
import { linksFromLlmsTxt } from './llms-txt.js';
import { rankLinks } from './rank.js';
import { createScope } from './scope.js';
import { discoverFromSitemaps } from './sitemaps.js';
import { normalizeCrawlUrl } from './urls.js';

type MapLink = MapResult['links'][number];

/** A ranked map reads more of the sitemaps than it answers, so the best matches are among what it read. */
const SEARCH_READ_FACTOR = 10;
const MAX_READ = 50_000;

/** A GET through the guard: the body of a 200, else null. */
export function fetchBody(client: SafeClient) {
  return async (url: URL): Promise<AsyncIterable<Uint8Array> | null> => {
    const result = await client.request(url, { headers: { accept: '*/*' } });
    if (!result.ok || result.response.status !== 200) return null;
    const { body } = result.response;
    return (async function* () {
      yield body;
    })();
  };
}

export interface DiscoverOptions {
  start: string;
  limit: number;
  search?: string;
  sitemap: 'include' | 'only' | 'skip';
  includeSubdomains: boolean;
  includePaths: string[];
  excludePaths: string[];
  client: SafeClient;
  fetchService: FetchService;
}

export async function discoverLinks(options: DiscoverOptions): Promise<MapLink[]> {
  const scope = createScope({
    start: options.start,
    allowSubdomains: options.includeSubdomains,
    allowExternal: false,
    includePaths: options.includePaths,
    excludePaths: options.excludePaths,
    maxDepth: Number.MAX_SAFE_INTEGER,
  });
  const wanted = options.search ? Math.min(MAX_READ, options.limit * SEARCH_READ_FACTOR) : options.limit;
  const found = new Map<string, MapLink>();
  const add = (href: string, source: MapLink['source'], title?: string, base?: string) => {
    const url = normalizeCrawlUrl(href, base);
    if (!url || found.has(url) || found.size >= wanted || scope.check(url, 0) !== null) return;
    found.set(url, title ? { url, title, source } : { url, source });
  };
  const start = new URL(options.start);
  const fetchText = fetchBody(options.client);
  if (options.sitemap !== 'only') {
    // The start page first: its links have titles, and it is the page the caller named.
    const page = await options.fetchService.fetchOne({
      url: options.start,
      maxTokens: 1,
      format: 'markdown',
      useCache: true,
    });
    add(options.start, 'page', page.metadata.title ?? undefined);
    const html = await options.fetchService.pageHtml(options.start);
    if (html) for (const link of linksFromHtml(html, page.metadata.url).links) add(link.url, 'page', link.title);
  }
  if (options.sitemap !== 'skip') {
    const accept = (url: string) => scope.check(url, 0) === null;
    for await (const url of discoverFromSitemaps({ start, fetchText, limit: wanted, accept })) add(url, 'sitemap');
  }
  if (options.sitemap !== 'only') {
    const llms = await fetchText(new URL('/llms.txt', start.origin));
    if (llms) {
      let text = '';
      for await (const chunk of llms) text += Buffer.from(chunk).toString('utf8');
      for (const link of linksFromLlmsTxt(text, start.href)) add(link.url, 'llms.txt', link.title);
    }
  }
  const links = [...found.values()];
  return (options.search ? rankLinks(links, options.search) : links).slice(0, options.limit);
}
