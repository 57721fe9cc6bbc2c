// What a crawl worker does with a job: read one page of a crawl (claimed in the store first, so a job run twice reads
// and bills nothing twice), keep its result, queue the links in scope, and finish the crawl when nothing is left; or
// deliver one webhook. Pages are read through the same fetch service and meter as POST /fetch: the guard, robots.txt,
// the router and the cache, each page held and settled like a single fetch, its charge kept only once its result is.
import { createHash } from 'node:crypto';
import type { Accounts } from '../accounts/index.js';
import type { Cache } from '../cache/types.js';
import type { CrawlEvent, CrawlRequest } from '../contract/crawl.js';
import type { FetchResult } from '../contract/fetch.js';
import type { HostGate } from '../crawl/host-gate.js';
import { fetchBody } from '../crawl/discover.js';
import { linksFromHtml } from '../crawl/links.js';
import { discoverFromSitemaps } from '../crawl/sitemaps.js';
import { createScope } from '../crawl/scope.js';
import type { CrawlRow, CrawlStore } from '../crawl/store.js';
import { normalizeCrawlUrl } from '../crawl/urls.js';
import {
  backoffMs,
  deliver,
  newDelivery,
  WEBHOOK_ATTEMPTS,
  type WebhookDelivery,
  type WebhookTarget,
} from '../crawl/webhooks.js';
import { toErrorEntry } from '../errors.js';
import type { RobotsPolicy } from '../fetchers/robots.js';
import type { SafeClient } from '../net/safe-client.js';
import { MILLICREDITS_PER_CREDIT } from '../pricing.js';
import type { FetchService } from '../services/fetch-service.js';
import type { JobOutcome, JobQueue, QueuedJob } from '../queue/types.js';
import { createDelivery } from '../util/delivery.js';
import type { MeterFor } from './meter.js';

export interface CrawlSettings {
  /** Requests at once to one host, across every worker. */
  hostConcurrency: number;
  /** The least time between two requests to one host (robots.txt's Crawl-delay when longer). */
  hostDelayMs: number;
  /** Bytes of content a crawl may keep; past it the crawl stops (byte_cap). */
  maxBytes: number;
  /** Bytes of content one account's kept crawls may hold together; past it they stop (account_byte_cap). */
  accountMaxBytes: number;
  retentionMs: number;
  /** Query-string variants of one path a crawl reads before it calls the path a trap. */
  maxQueryVariants: number;
  /**
   * How long a claimed page is its worker's; after it, another job for the page may read it. The job engine's lock:
   * a page's job runs again elsewhere only once its worker stopped renewing that (stalled), by then the claim is over.
   */
  claimMs: number;
}

export interface CrawlWorkerDeps {
  crawls: CrawlStore;
  queue: JobQueue;
  gate: HostGate;
  fetchService: FetchService;
  meterFor: MeterFor;
  accounts: Accounts;
  cache: Cache;
  robots: RobotsPolicy | null;
  client: SafeClient;
  settings: CrawlSettings;
  now(): number;
}

export type CrawlOptions = Omit<CrawlRequest, 'url' | 'limit' | 'webhook'>;

const pageJob = (crawlId: string, url: string): QueuedJob => ({
  name: 'page',
  data: { crawlId, url },
  // One job per page while it waits (BullMQ keeps one per id; its ids may not contain ':').
  id: `page-${crawlId}-${createHash('sha256').update(url).digest('base64url')}`,
});

const SITEMAP_BATCH = 500;

const scopeOf = (crawl: NonNullable<CrawlRow>, options: CrawlOptions) =>
  createScope({
    start: crawl.url,
    allowSubdomains: options.allow_subdomains,
    allowExternal: options.allow_external,
    includePaths: options.include_paths ?? [],
    excludePaths: options.exclude_paths ?? [],
    maxDepth: options.max_depth,
  });

export function createCrawlWorker(deps: CrawlWorkerDeps) {
  const { crawls, queue, settings } = deps;

  /** Queues the webhook deliveries of an event, if the crawl has a webhook that wants it. */
  async function emit(crawl: CrawlRow, type: CrawlEvent, data: object) {
    if (!crawl?.webhook) return;
    const delivery = newDelivery(JSON.parse(crawl.webhook) as WebhookTarget, type, crawl.id, data, deps.now());
    if (delivery) await queue.add([{ name: 'webhook', data: delivery as unknown as Record<string, unknown> }]);
  }

  /** Queues `urls` found at `depth` that the crawl has not seen and has room for. */
  async function enqueue(crawlId: string, urls: readonly string[], depth: number) {
    const { added } = await crawls.addPages(
      crawlId,
      urls.map((url) => ({ url, depth })),
      settings.maxQueryVariants,
    );
    await queue.add(added.map((page) => pageJob(crawlId, page.url)));
  }

  /**
   * Ends a crawl with no page left unfinished: completed for the reason it stopped taking pages, else done or the page
   * limit reached. Its counts, pages and charges are final once it says so.
   */
  async function completeIfDone(crawlId: string) {
    if ((await crawls.unfinished(crawlId)) > 0) return;
    const crawl = await crawls.get(crawlId);
    if (!crawl) return;
    const stopReason = crawl.stop_reason ?? (crawl.discovered >= crawl.page_limit ? 'limit' : 'done');
    if (!crawl.stop_reason && crawl.fetched === 0 && crawl.failed > 0 && crawl.discovered === crawl.failed) {
      const first = (await crawls.pagesAfter(crawlId, ['failed'], 0, 1))[0];
      const error = `the start page could not be read: ${first?.detail ?? 'no page answered'}`;
      if (
        await crawls.setStatus(crawlId, ['running'], 'failed', { stopReason: 'start_failed', error, now: deps.now() })
      )
        await emit(crawl, 'crawl.failed', { error });
      return;
    }
    if (await crawls.setStatus(crawlId, ['running'], 'completed', { stopReason, now: deps.now() }))
      await emit({ ...crawl, status: 'completed' }, 'crawl.completed', { stop_reason: stopReason });
  }

  /**
   * Stops a running crawl for `reason`: queued pages are skipped as their jobs come, pages in flight finish, and the
   * last of them completes it (completeIfDone), so that a completed crawl's counts never move again.
   */
  const stop = (crawl: NonNullable<CrawlRow>, reason: string) => crawls.stopTaking(crawl.id, reason);
  /** Whether a crawl starts pages: running, and not stopping. */
  const taking = (crawl: CrawlRow): crawl is NonNullable<CrawlRow> =>
    crawl?.status === 'running' && crawl.stop_reason === null;

  async function readPage(crawlId: string, url: string): Promise<JobOutcome> {
    let crawl = await crawls.get(crawlId);
    if (!crawl) return;
    if (crawl.status === 'queued' && (await crawls.setStatus(crawlId, ['queued'], 'running'))) {
      crawl = { ...crawl, status: 'running' };
      await emit(crawl, 'crawl.started', { url: crawl.url });
    }
    if (!taking(crawl)) {
      await crawls.finish(crawlId, url, 'skipped', {});
      return completeIfDone(crawlId);
    }
    const options = JSON.parse(crawl.options) as CrawlOptions;
    const target = new URL(url);
    const delayMs = Math.max(settings.hostDelayMs, (await crawlDelay(target)) ?? 0);
    // The host's gate first: it turns most jobs away while a site's slots are busy, and asking it costs one Redis
    // call where a claim and its undoing are two database writes.
    const entered = await deps.gate.enter(target.host, settings.hostConcurrency, delayMs);
    if (!entered.ok) return { laterMs: entered.retryInMs };
    const now = deps.now();
    let claim: Awaited<ReturnType<typeof crawls.claim>>;
    try {
      claim = await crawls.claim(crawlId, url, now, now + settings.claimMs);
    } catch (error) {
      await entered.release();
      throw error;
    }
    if (!claim.claimed) {
      await entered.release();
      return claim.busyUntil ? { laterMs: Math.max(100, claim.busyUntil - now + 100) } : undefined;
    }
    try {
      // Read again once the page and its host are this job's: a crawl cancelled (or stopped) meanwhile starts nothing.
      const current = await crawls.get(crawlId);
      if (taking(current)) await readClaimed(current, options, url, claim.depth);
      else await crawls.finish(crawlId, url, 'skipped', {});
    } finally {
      await entered.release();
    }
    await completeIfDone(crawlId);
  }

  async function enqueueSitemaps(crawl: NonNullable<CrawlRow>, options: CrawlOptions) {
    const scope = scopeOf(crawl, options);
    const accept = (url: string) => scope.check(url, 1) === null;
    let batch: string[] = [];
    const pages = discoverFromSitemaps({
      start: new URL(crawl.url),
      fetchText: fetchBody(deps.client),
      limit: crawl.page_limit,
      accept,
    });
    for await (const url of pages) {
      batch.push(url);
      if (batch.length < SITEMAP_BATCH) continue;
      await enqueue(crawl.id, batch, 1);
      batch = [];
    }
    await enqueue(crawl.id, batch, 1);
  }

  async function crawlDelay(url: URL): Promise<number | null> {
    if (!deps.robots) return null;
    return (await deps.robots.crawlHints(url.origin).catch(() => null))?.crawlDelayMs ?? null;
  }

  async function readClaimed(crawl: NonNullable<CrawlRow>, options: CrawlOptions, url: string, depth: number) {
    if (crawl.bytes >= settings.maxBytes) {
      await crawls.finish(crawl.id, url, 'skipped', {});
      return stop(crawl, 'byte_cap');
    }
    if ((await crawls.accountBytes(crawl.account_id, deps.now())) >= settings.accountMaxBytes) {
      await crawls.finish(crawl.id, url, 'skipped', {});
      return stop(crawl, 'account_byte_cap');
    }
    // The start page's job reads the sitemaps first: until it finishes, the crawl cannot end before their pages are in.
    if (url === crawl.url && options.sitemap !== 'skip') await enqueueSitemaps(crawl, options);
    const account = await deps.accounts.accountById(crawl.account_id);
    if (!account) return crawls.finish(crawl.id, url, 'skipped', {});
    const delivery = createDelivery();
    const clientId = crawl.client_id ?? undefined;
    const meter = deps.meterFor({ kind: 'account', account, keyId: crawl.key_id, clientId, delivery });
    const request = {
      url,
      maxTokens: options.max_tokens_each ?? null,
      format: options.format,
      useCache: true,
    };
    let result: FetchResult;
    try {
      result = await meter.fetch(
        'crawl',
        url,
        'auto',
        (pay) => deps.fetchService.fetchOne({ ...request, pay }),
        () => deps.fetchService.answersFromCache(request),
      );
    } catch (error) {
      delivery.end(false);
      const entry = toErrorEntry(error);
      if (entry.code === 'quota_exceeded') {
        await crawls.finish(crawl.id, url, 'skipped', {});
        return stop(crawl, 'credits_exhausted');
      }
      const state =
        entry.code === 'robots_disallowed' ? 'skipped_robots' : entry.code === 'blocked_url' ? 'blocked' : 'failed';
      await crawls.finish(crawl.id, url, state, { code: entry.code, status: entry.status, detail: entry.detail });
      await emit(crawl, 'crawl.page', { url, error: { code: entry.code, status: entry.status } });
      return;
    }
    const scope = scopeOf(crawl, options);
    const html = await deps.fetchService.pageHtml(url).catch(() => null);
    const found = html ? linksFromHtml(html, result.metadata.url) : { links: [] };
    const canonical = found.canonical ? normalizeCrawlUrl(found.canonical, result.metadata.url) : null;
    // A page's links become rows before the page is finished: a crawl is over when no row is left unfinished, so
    // another worker finishing the last other page in between must still find them (completeIfDone).
    // A page that names another URL as its own is that page: read once, under the canonical URL, and not charged here.
    if (canonical && canonical !== url && scope.check(canonical, depth) === null) {
      delivery.end(false);
      await enqueue(crawl.id, [canonical], depth);
      await crawls.finish(crawl.id, url, 'skipped', { code: 'duplicate', detail: `canonical: ${canonical}` });
      return;
    }
    const resultKey = `crawl:${crawl.id}:${url}`;
    await deps.cache.set(resultKey, result, Math.ceil(settings.retentionMs / 1000));
    if (depth < options.max_depth && options.sitemap !== 'only') {
      const next = found.links
        .map((link) => normalizeCrawlUrl(link.url, result.metadata.url))
        .filter((link): link is string => link !== null && scope.check(link, depth + 1) === null);
      await enqueue(crawl.id, next, depth + 1);
    }
    const millis = Math.round(result.credits * MILLICREDITS_PER_CREDIT);
    const finished = await crawls.finish(crawl.id, url, 'done', { resultKey, millis, bytes: result.markdown.length });
    // Charged only for the result the crawl keeps: a page another worker finished first costs nothing here.
    delivery.end(finished);
    if (!finished) return;
    await emit(crawl, 'crawl.page', { url, title: result.metadata.title, credits: result.credits });
  }

  async function sendWebhook(delivery: WebhookDelivery): Promise<JobOutcome> {
    if (await deliver(deps.client, delivery, deps.now() / 1000)) return;
    if (delivery.attempt >= WEBHOOK_ATTEMPTS) return;
    const retry = { ...delivery, attempt: delivery.attempt + 1 };
    await queue.add([{ name: 'webhook', data: retry, delayMs: backoffMs(delivery.attempt) }]);
  }

  /**
   * Queues again the pages of unfinished crawls that wait for a job: one whose job was lost between the page's row and
   * the queue (a process killed in between), or whose claim ran out. Idempotent: a page read once is finished once, and
   * BullMQ keeps one job per page id. `releaseClaims`: every claim is of a run that ended (the embedded default's one
   * process owns its queue and crawls, so at its start none of its claims is live).
   */
  async function resume(releaseClaims: boolean) {
    for (const { id } of await crawls.unfinishedCrawls()) {
      if (releaseClaims) await crawls.releaseClaims(id);
      const urls = await crawls.waitingPages(id, deps.now());
      for (let i = 0; i < urls.length; i += SITEMAP_BATCH)
        await queue.add(urls.slice(i, i + SITEMAP_BATCH).map((url) => pageJob(id, url)));
    }
  }

  return {
    enqueue,
    emit,
    resume,
    handle(job: QueuedJob): Promise<JobOutcome> {
      if (job.name === 'webhook') return sendWebhook(job.data as unknown as WebhookDelivery);
      const { crawlId, url } = job.data as { crawlId: string; url: string };
      return readPage(crawlId, url);
    },
  };
}

export type CrawlWorker = ReturnType<typeof createCrawlWorker>;
