// The search use case: ask the configured provider, then fetch its top results concurrently through the same
// pipeline as /fetch (cache, router, SSRF guard), each trimmed; a result that fails carries its error, never the
// search's.
import { AppError, locating, renamed, toErrorEntry, type Locate } from '../errors.js';
import type { FetchResult, SearchResult } from '../contract/fetch.js';
import { searchCredits } from '../pricing.js';
import type { SearchHit, SearchProvider } from '../search/types.js';
import type { FetchService } from './fetch-service.js';

export interface SearchOptions {
  query: string;
  numResults: number;
  maxTokensEach: number;
  maxCharsEach?: number | null;
}

type SearchItem = SearchResult['results'][number];

/** Names every variable, so an operator can act on the 503 without reading the docs. */
export const SEARCH_NOT_CONFIGURED =
  'web search is not configured on this server: set SEARCH_PROVIDER=searxng with ' +
  'SEARCH_BASE_URL (a SearXNG instance), or SEARCH_PROVIDER=brave with SEARCH_API_KEY (a ' +
  'Brave Search API key)';

function toItem(hit: SearchHit, page: FetchResult): SearchItem {
  return {
    title: hit.title || (page.metadata.title ?? ''),
    url: hit.url,
    snippet: hit.snippet,
    markdown: page.markdown,
    metadata: page.metadata,
    next_cursor: page.next_cursor,
    cache: page.cache,
    fetch_info: page.fetch_info,
  };
}

export function createSearchService(deps: { provider: SearchProvider | null; fetchService: FetchService }) {
  const { provider, fetchService } = deps;

  /**
   * `locate`: where the caller put the search's fields (`max_tokens_each`), for the 422 of a result no budget could
   * hold; a result's URL that cannot be fetched is located in the results (`['results', 3, 'url']`).
   */
  return async function searchAndFetch(
    options: SearchOptions,
    locate: Locate,
    signal?: AbortSignal,
  ): Promise<SearchResult> {
    if (!provider) throw new AppError('search_not_configured', SEARCH_NOT_CONFIGURED);
    const outcome = await provider.search(options.query, options.numResults, signal);
    if (!outcome.ok) {
      throw new AppError('search_failed', `the search provider failed: ${outcome.failure.detail}`, {
        retryHint: outcome.failure.retryable ? 'retry later' : undefined,
      });
    }
    const hits = outcome.results.slice(0, options.numResults);
    // Providers sometimes list one page twice; it is fetched once.
    const byUrl = new Map<string, Promise<FetchResult>>();
    const perResult = renamed({ max_tokens: ['max_tokens_each'], max_chars: ['max_chars_each'] }, locate);
    const items = hits.map(async (hit, index): Promise<SearchItem> => {
      let pending = byUrl.get(hit.url);
      if (!pending) {
        const at: Locate = (field) => (field[0] === 'url' ? ['results', index, 'url'] : perResult(field));
        pending = locating(at, () =>
          fetchService.fetchOne(
            // The search query picks each page's passages: the part that matches, not the page's head.
            {
              url: hit.url,
              maxTokens: options.maxTokensEach,
              maxChars: options.maxCharsEach,
              format: 'markdown',
              useCache: true,
              query: options.query,
            },
          ),
        );
        byUrl.set(hit.url, pending);
      }
      try {
        return toItem(hit, await pending);
      } catch (error) {
        return { ...hit, error: toErrorEntry(error) };
      }
    });
    const results = await Promise.all(items);
    const fetched = results.filter((r) => !('error' in r)).length;
    return { query: options.query, provider: provider.name, results, credits: searchCredits(fetched) };
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
