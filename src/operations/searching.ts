// Search and fetch: the provider's top results fetched through the fetch pipeline, billed as one search.
import type { SearchRequest, SearchResult } from '../contract/fetch.js';
import type { Locate } from '../errors.js';
import type { SearchService } from '../services/search.js';
import type { Caller, MeterFor } from './meter.js';

export function createSearchOperations(deps: { search: SearchService; meterFor: MeterFor }) {
  const { search, meterFor } = deps;
  return {
    searchAndFetch(caller: Caller, input: SearchRequest, locate: Locate): Promise<SearchResult> {
      return meterFor(caller).search(input.num_results, () =>
        search(
          {
            query: input.query,
            numResults: input.num_results,
            maxTokensEach: input.max_tokens_each,
            maxCharsEach: input.max_chars_each,
          },
          locate,
        ),
      );
    },
  };
}
