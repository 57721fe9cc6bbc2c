// The site operations: map (a site's URLs, synchronous and priced) and crawl (a job: start, read its progress and
// pages, its errors, cancel it). A crawl belongs to its account: another account's id is 404. API processes only
// queue and read; workers (crawl-worker.ts) do the reading, here in-process or in `fetchdown worker` processes.
import { randomBytes } from 'node:crypto';
import type { Cache } from '../cache/types.js';
import {
  CRAWL_PAGE_LIST_LIMIT,
  type CrawlCreated,
  type CrawlErrors,
  type CrawlList,
  type CrawlPageQuery,
  type CrawlRequest,
  type CrawlStatus,
  type MapRequest,
  type MapResult,
} from '../contract/crawl.js';
import type { FetchResult } from '../contract/fetch.js';
import { discoverLinks } from '../crawl/discover.js';
import { compilePatterns } from '../crawl/scope.js';
import type { CrawlRow, CrawlStore } from '../crawl/store.js';
import { normalizeCrawlUrl } from '../crawl/urls.js';
import { AppError, FieldError, type Locate, locating } from '../errors.js';
import type { SafeClient } from '../net/safe-client.js';
import type { FetchService } from '../services/fetch-service.js';
import type { Account } from '../store/types.js';
import type { CrawlWorker } from './crawl-worker.js';
import type { Caller, MeterFor } from './meter.js';

export interface CrawlingDeps {
  crawls: CrawlStore;
  worker: CrawlWorker;
  cache: Cache;
  client: SafeClient;
  fetchService: FetchService;
  meterFor: MeterFor;
  publicBaseUrl: string;
  /** The most pages one crawl of an account on `plan` may read. */
  maxPages(plan: string): number;
  retentionMs: number;
  /** Characters of results one account's kept crawls may hold together (CRAWL_ACCOUNT_MAX_BYTES). */
  accountMaxBytes: number;
  now(): number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A crawl's cursor is the last page's place in finishing order, written as a number. */
function afterSeq(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw FieldError.of(['cursor'], 'not a cursor this crawl gave', 'invalid_cursor');
  return Number(cursor);
}

function checkPatterns(input: { include_paths?: string[]; exclude_paths?: string[] }) {
  for (const field of ['include_paths', 'exclude_paths'] as const) {
    const compiled = compilePatterns(input[field] ?? []);
    if (!compiled.ok) throw FieldError.of([field, compiled.index], compiled.message, 'value_error');
  }
}

function startUrl(url: string): string {
  const normalized = normalizeCrawlUrl(url);
  if (!normalized) throw FieldError.of(['url'], 'not an http or https URL', 'url_scheme');
  return normalized;
}

export function createCrawlOperations(deps: CrawlingDeps) {
  const { crawls } = deps;

  function accountOf(caller: Caller, what: string) {
    if (caller.kind === 'account') return caller;
    throw new AppError('key_required', `${what} needs an API key (X-Service-Key): a crawl is billed to an account`);
  }

  async function ownCrawl(caller: Caller, id: string): Promise<NonNullable<CrawlRow>> {
    const crawl = caller.kind === 'account' ? await crawls.get(id) : undefined;
    // Another account's crawl is as unknown as one that never was.
    if (!crawl || caller.kind !== 'account' || crawl.account_id !== caller.account.id)
      throw new AppError('not_found', `no crawl ${id} on this account`);
    return crawl;
  }

  async function map(caller: Caller, input: MapRequest, locate: Locate): Promise<MapResult> {
    const start = await locating(locate, async () => {
      checkPatterns(input);
      return startUrl(input.url);
    });
    return deps.meterFor(caller).map(input.url, async () => {
      const links = await locating(locate, () =>
        discoverLinks({
          start,
          limit: input.limit,
          search: input.search,
          sitemap: input.sitemap,
          includeSubdomains: input.include_subdomains,
          includePaths: input.include_paths ?? [],
          excludePaths: input.exclude_paths ?? [],
          client: deps.client,
          fetchService: deps.fetchService,
        }),
      );
      return { url: input.url, links, credits: 0 };
    });
  }

  async function startCrawl(caller: Caller, input: CrawlRequest, locate: Locate): Promise<CrawlCreated> {
    const { account, keyId, clientId } = accountOf(caller, 'POST /crawl');
    const { url, limit, webhook, ...options } = input;
    const start = await locating(locate, async () => {
      const most = deps.maxPages(account.plan);
      if (limit > most)
        throw FieldError.of(
          ['limit'],
          `the ${account.plan} plan reads at most ${most} pages a crawl`,
          'less_than_equal',
        );
      checkPatterns(options);
      if (webhook) {
        const refused = await deps.client.check(new URL(webhook.url));
        if (refused)
          throw FieldError.of(['webhook', 'url'], `webhooks go to public addresses: ${refused.detail}`, 'value_error');
      }
      return startUrl(url);
    });
    // A crawl starts only for an account that could pay its first page now.
    await deps.meterFor(caller).requireCredit({ millis: 100, fetchMillis: 100 });
    // Crawls past their retention go as new ones come (their results leave the cache by their own TTL).
    await crawls.expire(deps.now());
    const kept = await crawls.accountBytes(account.id, deps.now());
    if (kept >= deps.accountMaxBytes)
      throw new AppError(
        'crawl_storage_full',
        `this account's crawls keep ${kept} characters of results, its limit is ${deps.accountMaxBytes}: a new ` +
          'crawl starts once older ones pass their retention',
      );
    const secret = webhook?.secret ?? `whsec_${randomBytes(24).toString('hex')}`;
    const id = await crawls.create({
      accountId: account.id,
      keyId,
      clientId: clientId ?? null,
      url: start,
      options,
      webhook: webhook ? { url: webhook.url, events: webhook.events, headers: webhook.headers, secret } : null,
      pageLimit: limit,
      now: deps.now(),
      retentionMs: deps.retentionMs,
    });
    await deps.worker.enqueue(id, [start], 0);
    return {
      id,
      status: 'queued',
      status_url: new URL(`/crawl/${id}`, deps.publicBaseUrl).href,
      ...(webhook ? { webhook_secret: secret } : {}),
    };
  }

  async function status(caller: Caller, id: string, query: CrawlPageQuery, locate: Locate): Promise<CrawlStatus> {
    const crawl = await ownCrawl(caller, id);
    const after = await locating(locate, async () => afterSeq(query.cursor));
    const rows = await crawls.pagesAfter(id, ['done'], after, Math.min(query.limit, CRAWL_PAGE_LIST_LIMIT));
    const pages: FetchResult[] = [];
    for (const row of rows) {
      const result = row.result_key ? await deps.cache.get<FetchResult>(row.result_key) : null;
      if (result) pages.push(result.value);
    }
    const last = rows.at(-1)?.seq;
    return {
      id: crawl.id,
      url: crawl.url,
      status: crawl.status as CrawlStatus['status'],
      stop_reason: crawl.stop_reason,
      error: crawl.error,
      created_at: iso(crawl.created_at)!,
      finished_at: iso(crawl.finished_at),
      expires_at: iso(crawl.expires_at)!,
      counts: {
        discovered: crawl.discovered,
        fetched: crawl.fetched,
        failed: crawl.failed,
        skipped_robots: crawl.skipped_robots,
        blocked: crawl.blocked,
        credits: crawl.credits_millis / 1000,
      },
      pages,
      next_cursor: rows.length === query.limit && last ? String(last) : null,
    };
  }

  async function errors(caller: Caller, id: string, query: CrawlPageQuery, locate: Locate): Promise<CrawlErrors> {
    await ownCrawl(caller, id);
    const after = await locating(locate, async () => afterSeq(query.cursor));
    const rows = await crawls.pagesAfter(id, ['failed', 'blocked', 'skipped_robots'], after, query.limit);
    return {
      id,
      errors: rows.map((row) => ({
        url: row.url,
        code: row.code ?? 'failed',
        status: row.status ?? 0,
        detail: row.detail ?? '',
      })),
      next_cursor: rows.length === query.limit ? String(rows.at(-1)!.seq) : null,
    };
  }

  /** Nothing new starts; pages being read finish; nothing more is charged. */
  async function cancel(caller: Caller, id: string): Promise<CrawlStatus> {
    const crawl = await ownCrawl(caller, id);
    await crawls.setStatus(crawl.id, ['queued', 'running'], 'cancelled', { stopReason: 'cancelled', now: deps.now() });
    return status(caller, id, { limit: 1 }, (field) => ['query', ...field]);
  }

  /** The account's latest crawls (GET /account/crawls, and /auth/crawls for the dashboard). */
  async function listCrawls(account: Account, limit = 20): Promise<CrawlList> {
    return (await crawls.list(account.id, limit)).map((crawl) => ({
      id: crawl.id,
      url: crawl.url,
      status: crawl.status as CrawlStatus['status'],
      stop_reason: crawl.stop_reason,
      discovered: crawl.discovered,
      fetched: crawl.fetched,
      failed: crawl.failed,
      credits: crawl.credits_millis / 1000,
      created_at: iso(crawl.created_at)!,
    }));
  }

  return { map, startCrawl, crawlStatus: status, crawlErrors: errors, cancelCrawl: cancel, listCrawls };
}

export type CrawlOperations = ReturnType<typeof createCrawlOperations>;
