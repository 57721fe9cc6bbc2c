// What `fetchdown crawl` makes of a crawl: followed to its end through the agent operations (its status at each poll
// and the pages read since the one before, each page once and in the order read), its progress as a line, and each
// page as a Markdown file with front matter.
import { setTimeout as sleep } from 'node:timers/promises';
import { CRAWL_PAGE_LIST_LIMIT, type CrawlStatus } from '../contract/crawl.js';
import type { FetchResult } from '../contract/fetch.js';
import type { AgentOperations } from './agent.js';
import { describeFailure } from './failure.js';

/** Polls in a row that may fail with a 5xx (a restarting or busy server) before the failure is the caller's. */
const POLL_RETRIES = 5;

export interface CrawlStep {
  status: CrawlStatus;
  /** Pages read since the previous step. */
  pages: FetchResult[];
}

async function pollWithRetries(read: () => Promise<CrawlStatus>, pollMs: number): Promise<CrawlStatus> {
  for (let failures = 0; ; failures++) {
    try {
      return await read();
    } catch (error) {
      if (failures >= POLL_RETRIES || describeFailure(error).status < 500) throw error;
      await sleep(pollMs);
    }
  }
}

/**
 * GET /crawl/{id} every `pollMs` until the crawl is over and its last page has been given. The API gives a next_cursor
 * only after a full list, so a shorter list is asked for again from the same cursor, and the pages already given are
 * skipped.
 */
export async function* followCrawl(
  operations: Pick<AgentOperations, 'crawlStatus'>,
  id: string,
  pollMs: number,
): AsyncGenerator<CrawlStep> {
  let cursor: string | undefined;
  let given = 0;
  for (;;) {
    const status = await pollWithRetries(
      () => operations.crawlStatus({ id, limit: CRAWL_PAGE_LIST_LIMIT, ...(cursor !== undefined && { cursor }) }),
      pollMs,
    );
    yield { status, pages: status.pages.slice(given) };
    if (status.next_cursor) {
      cursor = status.next_cursor;
      given = 0;
      continue;
    }
    if (status.status !== 'queued' && status.status !== 'running') return;
    given = status.pages.length;
    await sleep(pollMs);
  }
}

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  return s < 3600
    ? `${Math.floor(s / 60)} min ${s % 60} s`
    : `${Math.floor(s / 3600)} h ${Math.floor(s / 60) % 60} min`;
}

/**
 * "crawl <id> running: 12/40 pages, 12 credits, about 35 s left": pages done of discovered, credits, and the time left
 * at the pace of the `elapsedMs` so far; a bar of `barWidth` characters in front when given.
 */
export function describeProgress(status: CrawlStatus, elapsedMs: number, barWidth = 0): string {
  const { counts } = status;
  const done = counts.fetched + counts.failed + counts.skipped_robots + counts.blocked;
  const running = status.status === 'queued' || status.status === 'running';
  const left =
    running && done > 0 && counts.discovered > done
      ? `, about ${duration(((counts.discovered - done) * elapsedMs) / done)} left`
      : '';
  const state = `${status.status}${status.stop_reason ? ` (${status.stop_reason})` : ''}`;
  const line = `crawl ${status.id} ${state}: ${done}/${counts.discovered} pages, ${counts.credits} credits${left}`;
  if (barWidth <= 0) return line;
  const filled = Math.min(barWidth, Math.round((barWidth * done) / Math.max(1, counts.discovered)));
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${line}`;
}

/** A page as a Markdown file: YAML front matter (a JSON string is a YAML string), then its content. */
export function pageFile(page: FetchResult): string {
  const meta = {
    url: page.url,
    title: page.metadata.title,
    fetched_at: page.cache.cached_at,
    credits: page.credits,
    tokens: page.metadata.token_count,
  };
  const front = Object.entries(meta).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `---\n${front.join('\n')}\n---\n\n${page.markdown.trimEnd()}\n`;
}
