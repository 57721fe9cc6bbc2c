// Sitemaps (sitemaps.org): the page URLs a site lists, read as a stream of tags (htmlparser2's Parser fed chunk by
// chunk, gzip inflated on the way), never as a document: a 50,000-URL sitemap costs the memory of a few chunks.
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type Handler } from 'htmlparser2';
import { normalizeCrawlUrl } from './urls.js';

export interface SitemapEntry {
  loc: string;
  /** A `<url>`'s page, or a `<sitemap>` of a sitemap index. */
  kind: 'page' | 'sitemap';
}

/** The protocol's limit on a sitemap, uncompressed: past it a gzip bomb is assumed and the reading stops. */
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** The protocol's URLs are under 2,048 characters; a longer `<loc>` is dropped rather than kept growing. */
const MAX_LOC_LENGTH = 4096;
/** Sitemaps (indexes included) fetched at most, by default: a site's own sitemaps, not a tree to walk without end. */
const MAX_SITEMAPS = 50;
/** As src/fetchers/robots.ts: RFC 9309 asks crawlers to read 500 KiB of a robots.txt, and what follows is ignored. */
const ROBOTS_MAX_BYTES = 500 * 1024;

/** `sm:url` and `url` alike: sitemaps are written with and without a namespace prefix. */
const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

/**
 * Collects into `found` each `<loc>` that is a direct child of a `<url>` or `<sitemap>`, so an extension's
 * `<image:loc>` inside `<url><image:image>` is not taken for a page.
 */
function locCollector(found: SitemapEntry[]): Partial<Handler> {
  let depth = 0;
  let container: { kind: SitemapEntry['kind']; depth: number } | null = null;
  let loc: string | null = null; // the text of the <loc> being read (CDATA and entities arrive decoded as text)
  return {
    onopentag(name) {
      depth++;
      const local = localName(name);
      if (local === 'url' || local === 'sitemap') container = { kind: local === 'url' ? 'page' : 'sitemap', depth };
      else if (local === 'loc' && container?.depth === depth - 1) loc = '';
    },
    ontext(text) {
      if (loc !== null && loc.length <= MAX_LOC_LENGTH) loc += text;
    },
    onclosetag(name) {
      if (loc !== null && localName(name) === 'loc') {
        const value = loc.trim();
        if (container && value !== '' && value.length <= MAX_LOC_LENGTH)
          found.push({ loc: value, kind: container.kind });
        loc = null;
      } else if (container?.depth === depth) container = null;
      depth--;
    },
  };
}

async function* bytesOf(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/**
 * The body's bytes, inflated when `gzip` says so or, when it says nothing, when they start with gzip's magic bytes
 * (1f 8b): a `.gz` sitemap served with `Content-Encoding: gzip` arrives already inflated by the client.
 */
async function* inflated(body: AsyncIterable<Uint8Array | string>, gzip?: boolean): AsyncGenerator<Uint8Array> {
  const source = bytesOf(body);
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await source.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  async function* whole() {
    if (head.length > 0) yield head;
    yield* source;
  }
  if (!(gzip ?? (head[0] === 0x1f && head[1] === 0x8b))) {
    yield* whole();
    return;
  }
  // pipeline() ties the two streams' errors and ends together: stopping early (a consumer at its limit) ends the body.
  // One chunk read ahead, not Readable.from's 16: the body is pulled as the pages are.
  const gunzip = pipeline(Readable.from(whole(), { highWaterMark: 1 }), createGunzip(), () => {});
  for await (const chunk of gunzip) yield chunk as Buffer;
}

/**
 * Reads a sitemap or sitemap index as it arrives, yielding each `<loc>` (trimmed, entities and CDATA decoded) with
 * what it names. Throws when the body passes `maxBytes` once inflated, or is not valid gzip when gzip was asked for.
 */
export async function* readSitemap(
  body: AsyncIterable<Uint8Array | string>,
  options: { gzip?: boolean; maxBytes?: number } = {},
): AsyncIterable<SitemapEntry> {
  const maxBytes = options.maxBytes ?? SITEMAP_MAX_BYTES;
  const found: SitemapEntry[] = [];
  const parser = new Parser(locCollector(found), { xmlMode: true });
  const decoder = new TextDecoder();
  let bytes = 0;
  for await (const chunk of inflated(body, options.gzip)) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw new Error(`sitemap larger than ${maxBytes} bytes uncompressed`);
    parser.write(decoder.decode(chunk, { stream: true }));
    yield* found.splice(0);
  }
  parser.end(decoder.decode());
  yield* found.splice(0);
}

/** A sitemap's URL as a crawl fetches and dedupes it (as written, without its fragment), or null if not http(s). */
function sitemapUrl(loc: string, base: string): string | null {
  try {
    const url = new URL(loc, base);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The URLs of a robots.txt's `Sitemap:` lines (the field name in any case), resolved against `origin`, deduped. */
export function sitemapUrlsFromRobots(robotsTxt: string, origin: string): string[] {
  const urls = new Set<string>();
  for (const line of robotsTxt.split(/\r\n|\r|\n/)) {
    const value = /^\s*sitemap\s*:\s*([^\s#]+)/i.exec(line)?.[1];
    const url = value === undefined ? null : sitemapUrl(value, origin);
    if (url !== null) urls.add(url);
  }
  return [...urls];
}

/** The sitemaps robots.txt names; none when it cannot be read. */
async function sitemapsOfRobots(body: AsyncIterable<Uint8Array>, origin: string): Promise<string[]> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes >= ROBOTS_MAX_BYTES) break;
    }
  } catch {
    return [];
  }
  return sitemapUrlsFromRobots(Buffer.concat(chunks).subarray(0, ROBOTS_MAX_BYTES).toString('utf8'), origin);
}

/** The entries of a sitemap until it ends or breaks: a broken stream, or one past SITEMAP_MAX_BYTES. */
async function* untilBroken(entries: AsyncIterable<SitemapEntry>): AsyncIterable<SitemapEntry> {
  try {
    yield* entries;
  } catch {
    // What it gave so far stands; the caller reads the next sitemap.
  }
}

export interface SitemapDiscoveryOptions {
  start: URL;
  /** A GET through the guarded client: the body, or null when it was not found or failed. */
  fetchText: (url: URL) => Promise<AsyncIterable<Uint8Array> | null>;
  /** Pages yielded at most. */
  limit: number;
  /** Sitemaps (and indexes) fetched at most. */
  maxSitemaps?: number;
  /** Whether the caller wants a page (its scope): pages it does not want are neither yielded nor counted. */
  accept?: (url: string) => boolean;
}

/**
 * The site's pages listed by its sitemaps, each once (normalised by normalizeCrawlUrl), as they stream in: the
 * sitemaps named by robots.txt (or /sitemap.xml when it names none), and the sitemaps their indexes list, breadth
 * first. A sitemap that cannot be fetched, is broken or too large gives what it gave and the next one is read.
 */
export async function* discoverFromSitemaps(options: SitemapDiscoveryOptions): AsyncIterable<string> {
  const { start, fetchText, limit } = options;
  const maxSitemaps = options.maxSitemaps ?? MAX_SITEMAPS;
  if (limit <= 0) return;
  const robots = await fetchText(new URL('/robots.txt', start.origin));
  const listed = robots ? await sitemapsOfRobots(robots, start.origin) : [];
  const queue = (listed.length > 0 ? listed : [new URL('/sitemap.xml', start.origin).href]).slice(0, maxSitemaps);
  const queued = new Set(queue);
  const pages = new Set<string>();
  for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
    const body = await fetchText(new URL(url));
    if (!body) continue;
    for await (const entry of untilBroken(readSitemap(body))) {
      if (entry.kind === 'sitemap') {
        const next = sitemapUrl(entry.loc, url);
        // Only as many as will be fetched are kept: an index may list thousands.
        if (next !== null && !queued.has(next) && queued.size < maxSitemaps) {
          queued.add(next);
          queue.push(next);
        }
        continue;
      }
      const page = normalizeCrawlUrl(entry.loc, url);
      if (page === null || pages.has(page) || (options.accept && !options.accept(page))) continue;
      pages.add(page);
      yield page;
      if (pages.size >= limit) return;
    }
  }
}
