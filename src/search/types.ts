// The one contract every web search provider (SearXNG, Brave) implements; expected failures are values.

export type SearchProviderName = 'searxng' | 'brave';

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchFailure {
  /** What went wrong, for the operator and the caller; never carries the API key. */
  detail: string;
  retryable: boolean;
}

export type SearchOutcome = { ok: true; results: SearchHit[] } | { ok: false; failure: SearchFailure };

export interface SearchProvider {
  readonly name: SearchProviderName;
  /** Up to `count` hits in the provider's order, only http(s) URLs. */
  search(query: string, count: number, signal?: AbortSignal): Promise<SearchOutcome>;
}
