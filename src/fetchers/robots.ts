// robots.txt (RFC 9309) for our product token, checked before any fetcher runs: fetched through the same SSRF-guarded
// client with a short deadline, parsed by robots-parser, cached per origin. A refusal is 403 robots_disallowed. A
// crawl also reads the same record's Crawl-delay and Sitemap lines.
import { LRUCache } from 'lru-cache';
import robotsParserModule from 'robots-parser';
import { readOrMiss, writeOrSkip } from '../cache/tolerant.js';
import type { Cache } from '../cache/types.js';
import type { FetchFailure } from '../errors.js';
import type { SafeClient } from '../net/safe-client.js';
import { createSingleFlight } from '../util/single-flight.js';

/** The part of robots-parser used here (its bundled typings declare an ambient module that NodeNext cannot call). */
interface RobotsFile {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
  getSitemaps(): string[];
}
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => RobotsFile;

/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
export const ROBOTS_TTL_SECONDS = 24 * 60 * 60;
/**
 * A 5xx answer means "disallow everything for now" (§2.3.1.4); remembered briefly so a failing site is not asked per
 * request.
 */
export const ROBOTS_ERROR_TTL_SECONDS = 5 * 60;
/** §2.5: crawlers must parse at least 500 KiB; anything after that is ignored. */
const ROBOTS_MAX_BYTES = 500 * 1024;
/** robots.txt is one small file: a server that takes longer than this is treated as unreachable. */
export const ROBOTS_TIMEOUT_MS = 5000;

/** What is cached per origin: the file, or the verdict an HTTP status gave for the whole site. */
type RobotsRecord = { kind: 'file'; body: string } | { kind: 'allow-all' } | { kind: 'disallow-all'; status: number };

export interface RobotsPolicy {
  /**
   * Null when the URL may be fetched; else the failure to answer with (robots_disallowed, or why robots.txt could not
   * be read).
   */
  check(url: URL, signal?: AbortSignal): Promise<FetchFailure | null>;
  /**
   * What a crawl of `origin` (or of any URL of it) should know: the Crawl-delay of our group (or of `*`), and the
   * Sitemap lines as absolute http(s) URLs. A site without a readable robots.txt has neither.
   */
  crawlHints(origin: string, signal?: AbortSignal): Promise<CrawlHints>;
}

export interface CrawlHints {
  crawlDelayMs: number | null;
  sitemaps: string[];
}

export interface RobotsOptions {
  client: SafeClient;
  cache: Cache;
  /** The product token rules are matched against (FetchdownBot). */
  token: string;
  timeoutMs?: number;
}

/** A Sitemap line (robots-parser keeps it as written) as an absolute http(s) URL without fragment, or null. */
function sitemapUrl(value: string, origin: string): string | null {
  try {
    const url = new URL(value, origin);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function disallowed(url: URL, why: string): FetchFailure {
  return { code: 'robots_disallowed', detail: `${url.host}/robots.txt ${why}`, retryable: false };
}

export function createRobotsPolicy(options: RobotsOptions): RobotsPolicy {
  const inflight = createSingleFlight<RobotsRecord | FetchFailure>();
  // Parsed files by origin, so a busy site's robots.txt is not parsed again per request.
  const parsed = new LRUCache<string, { body: string; robots: RobotsFile }>({ max: 256 });
  const parse = (origin: string, body: string) => {
    const hit = parsed.get(origin);
    if (hit?.body === body) return hit.robots;
    const robots = robotsParser(new URL('/robots.txt', origin).href, body);
    parsed.set(origin, { body, robots });
    return robots;
  };

  async function load(origin: string, signal?: AbortSignal): Promise<RobotsRecord | FetchFailure> {
    const key = `robots:v1:${origin}`;
    const cached = await readOrMiss<RobotsRecord>(options.cache, key);
    if (cached) return cached.value;
    return inflight.run(key, async () => {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? ROBOTS_TIMEOUT_MS);
      const result = await options.client.request(new URL('/robots.txt', origin), {
        headers: { accept: 'text/plain, */*;q=0.5' },
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        maxBytes: ROBOTS_MAX_BYTES,
      });
      // Unreachable (§2.3.1.4): the page is not fetched, and the caller learns why (its host does not answer or is
      // blocked).
      if (!result.ok) return result.failure;
      const { status, body } = result.response;
      let record: RobotsRecord;
      let ttl = ROBOTS_TTL_SECONDS;
      if (status >= 200 && status < 300) record = { kind: 'file', body: body.toString('utf8') };
      else if (status >= 500) {
        record = { kind: 'disallow-all', status };
        ttl = ROBOTS_ERROR_TTL_SECONDS;
      } else record = { kind: 'allow-all' }; // §2.3.1.3: 4xx ("unavailable") means no rules
      await writeOrSkip(options.cache, key, record, ttl);
      return record;
    });
  }

  return {
    async check(url, signal) {
      const record = await load(url.origin, signal);
      if ('code' in record) return record;
      if (record.kind === 'allow-all') return null;
      if (record.kind === 'disallow-all')
        return {
          ...disallowed(url, `answered ${record.status}, which means "disallow all" until it recovers`),
          retryable: true,
        };
      return parse(url.origin, record.body).isAllowed(url.href, options.token) === false
        ? disallowed(url, `disallows ${options.token} from ${url.pathname}`)
        : null;
    },

    async crawlHints(href, signal) {
      const origin = new URL(href).origin; // the key check() uses, whatever the caller passed
      const record = await load(origin, signal);
      if ('code' in record || record.kind !== 'file') return { crawlDelayMs: null, sitemaps: [] };
      const robots = parse(origin, record.body);
      const delay = robots.getCrawlDelay(options.token);
      const sitemaps = robots.getSitemaps().flatMap((value) => sitemapUrl(value, origin) ?? []);
      return {
        crawlDelayMs: delay !== undefined && Number.isFinite(delay) && delay > 0 ? Math.round(delay * 1000) : null,
        sitemaps: [...new Set(sitemaps)],
      };
    },
  };
}
