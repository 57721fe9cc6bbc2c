// The Prometheus metrics of one process (GET /metrics): one registry, the metrics the call sites count into, and
// gauges read at scrape time from the parts that hold the state (the upstream limiter, the browser pool).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerProcessMetrics } from './process.js';

export const registry = new Registry();
/**
 * Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*), the lag sampled every 10 ms while
 * there is work: call noteWork() for each piece of it (process.ts).
 */
export const { noteWork } = registerProcessMetrics(registry);

export const httpDuration = new Histogram({
  name: 'fetchdown_http_request_duration_seconds',
  help: 'Time from the request arriving to the response being written, by route pattern, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

// The request count is the histogram's own count, copied at scrape time: counting it again per request would cost
// every request a second label lookup.
new Counter({
  name: 'fetchdown_http_requests_total',
  help: 'HTTP requests answered, by route pattern, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const { metricName, labels, value } of (await httpDuration.get()).values) {
      if (metricName?.endsWith('_count')) this.inc(labels as Record<'route' | 'method' | 'status', string>, value);
    }
  },
});

export const upstreamFetches = new Counter({
  name: 'fetchdown_fetches_total',
  help:
    'Upstream page fetches (cache misses), by the fetcher that answered last and the outcome: ok or the error ' +
    'code.',
  labelNames: ['fetcher', 'outcome'] as const,
  registers: [registry],
});

const lookups = { hit: 0, miss: 0 };

/** Counts a page cache lookup: two integers on the hot path, turned into the labelled counter at scrape time. */
export function countCacheLookup(hit: boolean): void {
  if (hit) lookups.hit++;
  else lookups.miss++;
}

new Counter({
  name: 'fetchdown_cache_lookups_total',
  help:
    'Page cache lookups of /fetch and batch items, by result: hit or miss (a cache that cannot be reached is a ' +
    'miss).',
  labelNames: ['result'] as const,
  registers: [registry],
  collect() {
    this.reset();
    this.inc({ result: 'hit' }, lookups.hit);
    this.inc({ result: 'miss' }, lookups.miss);
  },
});

export const extractionTasks = new Counter({
  name: 'fetchdown_extraction_tasks_total',
  help:
    'Conversions of a fetched body or a rendered page (html, pdf, extract), by outcome: ok or the error code ' +
    '(extraction_timeout, extraction_busy…).',
  labelNames: ['task', 'outcome'] as const,
  registers: [registry],
});

export const creditsCharged = new Counter({
  name: 'fetchdown_credits_charged_total',
  help: 'Credits charged to accounts, by operation (fetch, batch, estimate, search…).',
  labelNames: ['operation'] as const,
  registers: [registry],
});

/** Something that reports a gauge's value at scrape time; several may add up (tests build several services). */
type Reading = () => number;

function summedGauge(name: string, help: string): { gauge: Gauge; sources: Set<Reading> } {
  const sources = new Set<Reading>();
  const gauge = new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      let total = 0;
      for (const read of sources) total += read();
      this.set(total);
    },
  });
  return { gauge, sources };
}

const readings = {
  upstreamActive: summedGauge(
    'fetchdown_upstream_fetches_in_flight',
    'Upstream fetches running now (bounded by FETCH_CONCURRENCY).',
  ),
  upstreamQueued: summedGauge(
    'fetchdown_upstream_fetches_queued',
    'Upstream fetches waiting for a FETCH_CONCURRENCY slot.',
  ),
  httpInFlight: summedGauge('fetchdown_http_requests_in_flight', 'HTTP requests received and not yet answered.'),
  extractionRunning: summedGauge(
    'fetchdown_extraction_tasks_running',
    'Pages being extracted on the extraction threads now (at most EXTRACT_WORKERS).',
  ),
  extractionQueued: summedGauge(
    'fetchdown_extraction_tasks_queued',
    'Pages waiting for an extraction thread (bounded by EXTRACT_QUEUE_MAX).',
  ),
  extractionThreadsReady: summedGauge(
    'fetchdown_extraction_threads_ready',
    'Extraction threads started and loaded, ready for a page (EXTRACT_WORKERS_WARM from start-up, the rest on use).',
  ),
  extractionThreadsStarted: summedGauge(
    'fetchdown_extraction_threads_started',
    'Extraction threads started since the process began: the first ones, and each replacement (deadline, recycling).',
  ),
  browserBusy: summedGauge('fetchdown_browser_pages_busy', 'Browser pages loading a page for a caller now.'),
  browserQueued: summedGauge(
    'fetchdown_browser_pages_queued',
    'Callers waiting for a browser page (bounded by BROWSER_QUEUE_MAX).',
  ),
};

function track(pairs: [Set<Reading>, Reading][]): () => void {
  for (const [set, read] of pairs) set.add(read);
  return () => {
    for (const [set, read] of pairs) set.delete(read);
  };
}

/** Reports a limiter's running and waiting tasks as the upstream gauges; returns the function that stops it. */
export function trackUpstream(limiter: { readonly active: number; readonly queued: number }): () => void {
  return track([
    [readings.upstreamActive.sources, () => limiter.active],
    [readings.upstreamQueued.sources, () => limiter.queued],
  ]);
}

/** Reports an HTTP server's requests in flight; returns the function that stops it. */
export function trackHttpInFlight(read: Reading): () => void {
  return track([[readings.httpInFlight.sources, read]]);
}

/** Reports a browser pool's busy pages and waiting callers; returns the function that stops it. */
export function trackBrowserPool(pool: { stats(): { busy: number; queued: number } }): () => void {
  return track([
    [readings.browserBusy.sources, () => pool.stats().busy],
    [readings.browserQueued.sources, () => pool.stats().queued],
  ]);
}

/** Reports the extraction threads' running and waiting pages; nothing while conversions run in the calling thread. */
export function trackExtraction(conversions: {
  stats(): { ready: number; running: number; queued: number; started: number } | null;
}): () => void {
  return track([
    [readings.extractionThreadsReady.sources, () => conversions.stats()?.ready ?? 0],
    [readings.extractionRunning.sources, () => conversions.stats()?.running ?? 0],
    [readings.extractionQueued.sources, () => conversions.stats()?.queued ?? 0],
    [readings.extractionThreadsStarted.sources, () => conversions.stats()?.started ?? 0],
  ]);
}
