// The default budget of an MCP result when the caller sets no size (MCP_DEFAULT_MAX_TOKENS, MCP_DEFAULT_MAX_CHARS):
// MCP clients refuse, cut or set aside large results (Claude Code: over 25,000 tokens, or over 50,000 characters,
// which it writes to a file); a trimmed page's outline and next_cursor tell the model how to read on.
import type { FetchResult } from '../contract/fetch.js';
import type { ToolName } from '../contract/tools.js';

type OutlineEntry = FetchResult['outline'][number];

export interface DefaultBudget {
  /** Tokens of content of the whole result; 0: none. */
  tokens: number;
  /** Characters of the whole result, as a client reads it (its JSON, or its text); 0: none. */
  chars: number;
}

/** search_and_fetch's smallest max_tokens_each (its schema's minimum). */
const SEARCH_MIN_EACH = 100;
/**
 * What a page's entry holds besides its content, in characters of JSON: metadata, cache and fetch_info come to about
 * 1,000; the rest is room for long URLs and titles. Its outline is folded to fit what is left (fitOutlines).
 */
const PAGE_ENVELOPE_CHARS = 1500;
/** Content goes out as JSON, where quotes, backslashes and line breaks take two characters: a few % of Markdown. */
export const ESCAPED_SHARE = 0.9;
/** format json repeats the content as typed blocks (`document`), with their own JSON around each one. */
const JSON_FORMAT_COPIES = 3;
/** A page of a large batch still shows this much, even where that takes the result past the budget. */
const MIN_CHARS_EACH = 200;

/** The tools whose callers size their pages; the crawl tools fit their results to the budget (crawl-results.ts). */
const SIZE_FIELDS: Partial<Record<ToolName, [tokens: string, chars: string]>> = {
  fetch_url: ['max_tokens', 'max_chars'],
  fetch_multiple: ['max_tokens_each', 'max_chars_each'],
  search_and_fetch: ['max_tokens_each', 'max_chars_each'],
};

/**
 * Fills in the budget on validated `args` when the caller's own arguments (`given`) set no size (neither tokens nor
 * characters): all of it for fetch_url's page; for fetch_multiple and search_and_fetch an equal share per page, so the
 * whole result fits it. search_and_fetch keeps its smaller default per result when that already fits. Returns the
 * characters the result must then fit (fitOutlines), or null when it need not.
 */
export function applyDefaultBudget(
  tool: ToolName,
  given: Record<string, unknown>,
  args: Record<string, unknown>,
  budget: DefaultBudget,
): number | null {
  const fields = SIZE_FIELDS[tool];
  if (!fields) return null;
  const [tokensField, charsField] = fields;
  if (given[tokensField] != null || given[charsField] != null) return null;
  const pages =
    tool === 'fetch_url'
      ? 1
      : tool === 'fetch_multiple'
        ? (args.urls as unknown[]).length
        : (args.num_results as number);
  if (budget.tokens > 0) {
    if (tool === 'fetch_url') args.max_tokens = budget.tokens;
    if (tool === 'fetch_multiple') args.max_tokens_each = Math.max(1, Math.floor(budget.tokens / pages));
    if (tool === 'search_and_fetch') {
      const share = Math.max(SEARCH_MIN_EACH, Math.floor(budget.tokens / pages));
      args.max_tokens_each = Math.min(args.max_tokens_each as number, share);
    }
  }
  if (budget.chars <= 0) return null;
  const copies = tool === 'fetch_url' && args.format === 'json' ? JSON_FORMAT_COPIES : 1;
  const content = budget.chars * ESCAPED_SHARE - pages * PAGE_ENVELOPE_CHARS;
  args[charsField] = Math.max(MIN_CHARS_EACH, Math.floor(content / pages / copies));
  return budget.chars;
}

type Outlined = { outline?: OutlineEntry[] };

/**
 * The result with its outlines folded so that its JSON is at most `limit` characters, when the rest of it allows:
 * each outline keeps its first entries and ends with one for the sections after them ("… 212 more sections", their
 * tokens summed), so it still accounts for every token that was cut. The text a client is sent is rendered from the
 * folded result, and is shorter than its JSON. The result itself is left as it is (it may be a shared, frozen answer).
 */
export function fitOutlines<T extends object>(result: T, limit: number): T {
  const size = JSON.stringify(result).length;
  if (size <= limit) return result;
  const pages: Outlined[] = 'results' in result ? (result.results as Outlined[]) : [result];
  const outlined = pages.filter((page) => (page.outline?.length ?? 0) > 1);
  if (outlined.length === 0) return result;
  const outlineChars = outlined.reduce((sum, page) => sum + JSON.stringify(page.outline).length, 0);
  const roomEach = Math.floor((limit - (size - outlineChars)) / outlined.length);
  const fold = (page: Outlined): Outlined =>
    outlined.includes(page) ? { ...page, outline: foldOutline(page.outline!, roomEach) } : page;
  if ('results' in result) return { ...result, results: pages.map(fold) };
  return fold(result) as T;
}

/** The first entries of `outline` and one for the rest, in at most `room` characters of JSON (or that one alone). */
function foldOutline(outline: OutlineEntry[], room: number): OutlineEntry[] {
  const rest = (from: number): OutlineEntry => {
    const after = outline.slice(from);
    return {
      level: Math.min(...after.map((entry) => entry.level)),
      title: `… ${after.length} more section${after.length === 1 ? '' : 's'}`,
      tokens: after.reduce((sum, entry) => sum + entry.tokens, 0),
    };
  };
  // '[', ']' and a comma before each entry but the first; the last entry's length is at most that of the first rest.
  let used = 2 + JSON.stringify(rest(0)).length;
  let kept = 0;
  for (const entry of outline) {
    const cost = JSON.stringify(entry).length + 1;
    if (used + cost > room) break;
    used += cost;
    kept++;
  }
  return kept === outline.length ? outline : [...outline.slice(0, kept), rest(kept)];
}
