// The crawl tools' results: map_site's links and crawl_status's pages fitted to the character budget of an MCP result
// (MCP_DEFAULT_MAX_CHARS; a site's 5,000 links or 100 whole pages would not be read), and the text a model reads.
import type { CrawlCreated, CrawlStatus, CrawlStatusToolResult, MapResult, MapToolResult } from '../contract/crawl.js';
import { ESCAPED_SHARE } from './default-budget.js';

/** The most of a page's Markdown crawl_status shows, and the least when many pages share the budget. */
const EXCERPT_CHARS = 1000;
const MIN_EXCERPT_CHARS = 200;
/** A page's entry besides its excerpt (URL, title, counts) and the status around the pages, in characters of JSON. */
const PAGE_ENTRY_CHARS = 300;
const STATUS_CHARS = 800;

/** The links whose JSON fits in `chars` (0: all of them), the rest counted in links_omitted. */
export function fitLinks(result: MapResult, chars: number): MapToolResult {
  if (chars <= 0) return result;
  let size = JSON.stringify({ ...result, links: [], links_omitted: result.links.length }).length;
  let kept = 0;
  for (const link of result.links) {
    size += JSON.stringify(link).length + 1;
    if (size > chars) break;
    kept++;
  }
  if (kept === result.links.length) return result;
  return { ...result, links: result.links.slice(0, kept), links_omitted: result.links.length - kept };
}

/** The start of `text` in at most `max` characters, cut after a word when one ends in its second half. */
function firstPart(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const space = head.search(/\s\S*$/);
  const cut = space > max / 2 ? head.slice(0, space) : head.replace(/[\uD800-\uDBFF]$/, '');
  return `${cut.trimEnd()} …`;
}

/** The status with each page cut to its first part: EXCERPT_CHARS, or its share of `chars` when that is less. */
export function summarizeCrawl(status: CrawlStatus, chars: number): CrawlStatusToolResult {
  const count = Math.max(1, status.pages.length);
  const share = Math.floor((chars * ESCAPED_SHARE - STATUS_CHARS) / count) - PAGE_ENTRY_CHARS;
  const each = chars > 0 ? Math.max(MIN_EXCERPT_CHARS, Math.min(EXCERPT_CHARS, share)) : EXCERPT_CHARS;
  return {
    ...status,
    pages: status.pages.map((page) => ({
      url: page.url,
      title: page.metadata.title,
      token_count: page.metadata.token_count,
      credits: page.credits,
      markdown: firstPart(page.markdown, each),
      cut: page.markdown.length > each,
    })),
  };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function renderMap(result: MapToolResult): string {
  const lines = result.links.map((link) => `- ${link.title ? `${link.title}: ` : ''}${link.url} (${link.source})`);
  const omitted = result.links_omitted
    ? `\n\n${plural(result.links_omitted, 'more link')} left out to fit the result: ask for a smaller limit, ` +
      'narrow it with include_paths, or rank it with search.'
    : '';
  const total = result.links.length + (result.links_omitted ?? 0);
  const head = `# ${plural(total, 'URL')} of ${result.url}\n\n${plural(result.credits, 'credit')}`;
  return `${head}\n\n${lines.join('\n')}${omitted}`;
}

export function renderCrawlStarted(created: CrawlCreated): string {
  return (
    `Crawl ${created.id} started (${created.status}); its status: ${created.status_url}\n\n` +
    `Call crawl_status with id "${created.id}" to follow its progress and read its pages, again while it is ` +
    'queued or running.'
  );
}

export function renderCrawlStatus(status: CrawlStatusToolResult): string {
  const c = status.counts;
  const head =
    `# Crawl ${status.id} of ${status.url}: ${status.status}\n\n` +
    `${c.fetched} fetched of ${c.discovered} discovered · ${c.failed} failed · ${c.skipped_robots} refused by ` +
    `robots.txt · ${c.blocked} blocked · ${plural(c.credits, 'credit')}` +
    (status.stop_reason ? `\nStopped: ${status.stop_reason}${status.error ? ` (${status.error})` : ''}` : '');
  const pages = status.pages.map(
    (page, i) =>
      `## ${i + 1}. ${page.title ?? page.url}\n\nURL: ${page.url} · ${page.token_count} tokens · ` +
      `${plural(page.credits, 'credit')}\n\n${page.markdown}`,
  );
  const running = status.status === 'queued' || status.status === 'running';
  const next = status.next_cursor
    ? `More pages: call crawl_status with id "${status.id}" and cursor "${status.next_cursor}".`
    : running
      ? 'Still running: call crawl_status again in a while, with the same arguments, for the pages read since.'
      : 'No more pages.';
  const whole = status.pages.some((page) => page.cut) ? ' To read a page whole, call fetch_url with its URL.' : '';
  return [head, ...pages, `${next}${whole}`].join('\n\n---\n\n');
}
