// Tool results as the Markdown a model reads (the text content); the same data goes out as structuredContent.
import type { Static } from '@sinclair/typebox';
import type { BatchResult, EstimateResult, FetchResult, SearchResult } from '../contract/fetch.js';
import { cursorRendering } from '../operations/cursor.js';

type Estimate = Static<typeof EstimateResult>;
type Batch = Static<typeof BatchResult>;
type ItemError = { url: string; error: { status: number; code: string; detail: string } };

type Page = Pick<FetchResult, 'metadata' | 'fetch_info' | 'cache'>;

function describePage(page: Page): string {
  const m = page.metadata;
  const size = m.truncated ? `${m.token_count} of ${m.total_tokens} tokens (trimmed)` : `${m.token_count} tokens`;
  return (
    `Source: ${m.url} · ${size} · fetcher: ${page.fetch_info.fetcher_used} · cache: ` +
    `${page.cache.hit ? 'hit' : 'miss'}`
  );
}

/** A cursor reads on only in the rendering it came from: the arguments the next call must repeat, besides url. */
function cursorArguments(cursor: string): string[] {
  const args = [`cursor "${cursor}"`];
  const decoded = cursorRendering(cursor);
  if (!decoded) return args; // a remote API of another version may write cursors this one cannot read
  const { format, style } = decoded;
  if (format !== 'markdown') args.push(`format "${format}"`);
  if (style.links !== 'inline') args.push(`links "${style.links}"`);
  if (style.images !== 'keep') args.push(`images "${style.images}"`);
  return args;
}

function continuation(url: string, cursor: string | null, outline: FetchResult['outline'] = []): string {
  if (!cursor) return '';
  const cut = outline
    .map((o) => `${'  '.repeat(Math.max(0, o.level - 1))}- ${o.title} (${o.tokens} tokens)`)
    .join('\n');
  const args = [`url "${url}"`, ...cursorArguments(cursor)];
  const call = `${args.slice(0, -1).join(', ')} and ${args.at(-1)}`;
  return `\n\n---\nTrimmed. To read on, call fetch_url with ${call}.${cut ? `\nSections not shown:\n${cut}` : ''}`;
}

/** The content's first line when it is a level-1 heading (the page's H1), with the blank lines after it. */
const OPENING_H1 = /^# [^\n]*\n*/;

export function renderFetch(page: FetchResult): string {
  // The title once: the page's own H1 when the content opens with one (lifted above the source line), else a heading
  // made of metadata.title (format text, a part read on with a cursor, a page without an H1).
  const h1 = OPENING_H1.exec(page.markdown)?.[0];
  const heading = h1 ? h1.trimEnd() : `# ${page.metadata.title ?? page.metadata.url}`;
  const content = h1 ? page.markdown.slice(h1.length) : page.markdown;
  return `${heading}\n\n${describePage(page)}\n\n---\n\n${content}${continuation(page.url, page.next_cursor, page.outline)}`;
}

export function renderEstimate(estimate: Estimate): string {
  const head = `About ${estimate.estimated_tokens} tokens for ${estimate.url}`;
  if (!estimate.confident)
    return `${head} (not confident: the server did not report a size; fetch with max_tokens instead).`;
  // `??`: an API of an older version (remote mode) sends no method.
  const how =
    {
      cache: 'exact, from the cached copy',
      whole: 'counted: the whole page fitted in the bytes read',
      sample: `from the first 64 KB, extrapolated to ${estimate.content_length} bytes`,
      whole_compressed: 'counted: the whole page fitted in the bytes read, sent compressed',
      sample_compressed: `from what the first 64 KB sent compressed decode to, of ${estimate.content_length} bytes sent`,
      length: `from the reported size of ${estimate.content_length} bytes`,
    }[estimate.method] ?? `from the reported size of ${estimate.content_length} bytes`;
  return `${head} (${how}).`;
}

function renderError(error: ItemError['error']): string {
  return `Error ${error.status} ${error.code}: ${error.detail}`;
}

export function renderBatch(batch: Batch): string {
  const parts = batch.results.map((result, i) => {
    if ('error' in result) return `## ${i + 1}. ${result.url}\n\n${renderError(result.error)}`;
    const page = result;
    return (
      `## ${i + 1}. ` +
      `${page.metadata.title ?? page.url}\n\n${describePage(page)}\n\n${page.markdown}${continuation(page.url, page.next_cursor, page.outline)}`
    );
  });
  return parts.join('\n\n---\n\n');
}

export function renderSearch(search: SearchResult): string {
  const head =
    `# Search results for "${search.query}"\n\n${search.results.length} ` +
    `result${search.results.length === 1 ? '' : 's'} from ${search.provider} · ` +
    `${search.credits} credits`;
  const parts = search.results.map((result, i) => {
    const top =
      `## ${i + 1}. ${result.title || result.url}\n\nURL: ` +
      `${result.url}${result.snippet ? `\n> ${result.snippet}` : ''}`;
    if ('error' in result) return `${top}\n\n${renderError(result.error)}`;
    return `${top}\n\n${describePage(result)}\n\n${result.markdown}${continuation(result.url, result.next_cursor)}`;
  });
  return [head, ...parts].join('\n\n---\n\n');
}
