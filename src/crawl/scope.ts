// Which discovered URLs a crawl may visit: the start URL's site (its registrable domain), the caller's include and
// exclude patterns, a depth limit and the URL shapes of crawler traps. A refusal is a value the crawl counts.
import { getDomain } from 'tldts';
import { compilePatterns, MAX_TESTED_LENGTH } from './patterns.js';
import { normalizeCrawlUrl, segmentsRepeat } from './urls.js';

export { compilePatterns } from './patterns.js';

export type ScopeRefusal = 'external' | 'subdomain' | 'excluded' | 'not_included' | 'depth' | 'trap';

export interface Scope {
  /** Null when the crawl may visit `url` (normalised by normalizeCrawlUrl) found at `depth`; else why not. */
  check(url: string, depth: number): null | ScopeRefusal;
}

export interface ScopeOptions {
  start: string;
  allowSubdomains: boolean;
  allowExternal: boolean;
  /** Regular expressions tested against a URL's path plus query; compilePatterns must have accepted them. */
  includePaths: string[];
  excludePaths: string[];
  maxDepth: number;
  /** How often one path segment may occur in a path (segmentsRepeat). */
  maxRepeatedSegments?: number;
}

/**
 * Apache Nutch's default filter refuses a path segment seen 3 times (`/a/b/a/b/a/`), the mark of relative links that
 * loop; a real site nests that deep in one name rarely.
 */
const MAX_REPEATED_SEGMENTS = 2;

/**
 * The site a host belongs to: its registrable domain (the Public Suffix List's private part included, so
 * `alice.github.io` and `bob.github.io` are two sites). An IP literal, `localhost` or a bare name has none and is a
 * site of its own.
 */
function siteOf(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

/** `www.example.com` and `example.com` are one site's two spellings, whatever else is a subdomain. */
function withoutWww(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}

function compiled(patterns: string[], field: string): RegExp[] {
  const result = compilePatterns(patterns);
  if (!result.ok) throw new TypeError(`${field}[${result.index}]: ${result.message}`);
  return result.patterns;
}

/** Throws TypeError on a start URL that is not http(s) or on a pattern compilePatterns refuses. */
export function createScope(options: ScopeOptions): Scope {
  const start = normalizeCrawlUrl(options.start);
  if (start === null) throw new TypeError(`not an http(s) URL: ${options.start}`);
  const startHost = new URL(start).hostname;
  const site = siteOf(startHost);
  // Without allowSubdomains: the site's apex and the start URL's own host, each with or without `www.`.
  const hosts = new Set([site, withoutWww(startHost)]);
  const include = compiled(options.includePaths, 'includePaths');
  const exclude = compiled(options.excludePaths, 'excludePaths');
  const maxRepeated = options.maxRepeatedSegments ?? MAX_REPEATED_SEGMENTS;

  return {
    check(url, depth) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return 'external'; // not a URL of any site
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'external';
      // allowExternal lifts both host limits: a subdomain is nearer than another site.
      if (!options.allowExternal) {
        if (siteOf(parsed.hostname) !== site) return 'external';
        if (!options.allowSubdomains && !hosts.has(withoutWww(parsed.hostname))) return 'subdomain';
      }
      if (depth > options.maxDepth) return 'depth';
      const tested = parsed.pathname + parsed.search;
      // A path this long is a generated one, and bounds what a pattern's backtracking can cost (patterns.ts).
      if (tested.length > MAX_TESTED_LENGTH || segmentsRepeat(url, maxRepeated)) return 'trap';
      if (exclude.some((pattern) => pattern.test(tested))) return 'excluded';
      if (include.length > 0 && url !== start && !include.some((pattern) => pattern.test(tested))) {
        return 'not_included';
      }
      return null;
    },
  };
}
