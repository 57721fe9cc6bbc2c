// What the crawl fixture site counts, for the crawl tests and the crawl benchmark to judge a crawl by: requests per
// URL, pages fetched twice, the most requests in flight per host, arrival times, requests that left the crawl's scope,
// requests per User-Agent (which of several workers, each with an agent of its own, read pages).

export interface CrawlSiteStats {
  /** Every request the site received. */
  total: number;
  /** Requests per URL as it arrived, `host/path?query` with the host's port left out: `site.test/docs/1`. */
  requests: Record<string, number>;
  /**
   * Pages requested more than once once spelt alike (no trailing slash, no `utm_` parameters, parameters sorted), each
   * as `host/path?query`: a crawl that fetched one of these failed to dedupe. robots.txt, sitemaps and llms.txt are
   * not pages here, since every worker of a crawl may read them.
   */
  fetchedTwice: string[];
  /** Per host name: its requests, the most it had in flight at once, and when each arrived (epoch ms, in order). */
  hosts: Record<string, { requests: number; maxConcurrent: number; arrivals: number[] }>;
  /**
   * URLs requested that a crawl of site.test (without allow_external) must never request, as `http://host:port/path`:
   * any on other.test, private.test, 127.0.0.2 or a name the site does not serve.
   */
  outOfScope: string[];
  /** Requests per User-Agent header (none: ''). */
  agents: Record<string, number>;
}

/** Requests to these are site infrastructure rather than pages: a crawl may read them more than once. */
const NOT_PAGES = /^\/(robots\.txt|llms\.txt|sitemap[^/]*)$/;

/** The spelling a crawler should reduce a page's URL to before deciding whether it has fetched it. */
function pageKey(host: string, url: URL): string {
  const params = [...url.searchParams].filter(([name]) => !name.startsWith('utm_'));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  return `${host}${url.pathname.replace(/(.)\/+$/, '$1')}${query ? `?${query}` : ''}`;
}

export interface CrawlSiteCounters {
  /** Counts a request that has just arrived; call the function it returns when its response has closed. */
  arrive(request: { host: string; url: URL; outOfScope: string | null; agent?: string }): () => void;
  stats(): CrawlSiteStats;
  reset(): void;
}

export function createCrawlSiteCounters(): CrawlSiteCounters {
  // In flight outlives reset(): requests open across a reset still close later.
  const inFlight = new Map<string, number>();
  let total = 0;
  let requests = new Map<string, number>();
  let pages = new Map<string, number>();
  let hosts = new Map<string, { requests: number; maxConcurrent: number; arrivals: number[] }>();
  let outOfScope: string[] = [];
  let agents = new Map<string, number>();

  const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

  return {
    arrive({ host, url, outOfScope: outside, agent = '' }) {
      total++;
      bump(agents, agent);
      bump(requests, `${host}${url.pathname}${url.search}`);
      if (!NOT_PAGES.test(url.pathname)) bump(pages, pageKey(host, url));
      if (outside !== null) outOfScope.push(outside);
      const now = (inFlight.get(host) ?? 0) + 1;
      inFlight.set(host, now);
      let counts = hosts.get(host);
      if (!counts) hosts.set(host, (counts = { requests: 0, maxConcurrent: 0, arrivals: [] }));
      counts.requests++;
      counts.maxConcurrent = Math.max(counts.maxConcurrent, now);
      counts.arrivals.push(Date.now());
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
      };
    },
    stats: () => ({
      total,
      requests: Object.fromEntries(requests),
      fetchedTwice: [...pages].filter(([, count]) => count > 1).map(([key]) => key),
      hosts: Object.fromEntries(
        [...hosts].map(([host, counts]) => [host, { ...counts, arrivals: [...counts.arrivals] }] as const),
      ),
      outOfScope: [...outOfScope],
      agents: Object.fromEntries(agents),
    }),
    reset() {
      total = 0;
      requests = new Map();
      pages = new Map();
      hosts = new Map();
      outOfScope = [];
      agents = new Map();
    },
  };
}
