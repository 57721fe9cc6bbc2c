// Picks the search provider named by SEARCH_PROVIDER; null when search is not configured (POST /search answers 503).
import type { Config } from '../config.js';
import { createBraveProvider } from './brave.js';
import { createSearxngProvider } from './searxng.js';
import type { SearchProvider } from './types.js';

export type { SearchHit, SearchOutcome, SearchProvider } from './types.js';

export function createSearchProvider(config: Config): SearchProvider | null {
  switch (config.SEARCH_PROVIDER) {
    case 'searxng':
      // loadConfig guarantees SEARCH_BASE_URL with searxng.
      return createSearxngProvider({
        baseUrl: config.SEARCH_BASE_URL!,
        timeoutMs: config.FETCH_TIMEOUT_MS,
        userAgent: config.USER_AGENT,
      });
    case 'brave':
      return createBraveProvider({
        apiKey: config.SEARCH_API_KEY!,
        baseUrl: config.SEARCH_BASE_URL,
        timeoutMs: config.FETCH_TIMEOUT_MS,
      });
    default:
      return null;
  }
}
