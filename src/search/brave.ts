// The Brave Search API (GET /res/v1/web/search?q=…&count=N, X-Subscription-Token); web.results[].title/url/description.
import { getJson, isWebUrl, joinUrl } from './http.js';
import type { SearchHit, SearchProvider } from './types.js';

export const BRAVE_BASE_URL = 'https://api.search.brave.com';

export interface BraveOptions {
  apiKey: string;
  /** Only tests and proxies change it. */
  baseUrl?: string;
  timeoutMs: number;
}

interface BraveResult {
  title?: unknown;
  url?: unknown;
  description?: unknown;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  '#39': "'",
  '#x27': "'",
  nbsp: ' ',
};

/** Brave marks the query terms in titles and descriptions with <strong>; a snippet for a model is plain text. */
function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|#39|#x27|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '')
    .trim();
}

export function createBraveProvider(options: BraveOptions): SearchProvider {
  return {
    name: 'brave',
    async search(query, count, signal) {
      const url = joinUrl(options.baseUrl ?? BRAVE_BASE_URL, '/res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      const answer = await getJson({
        provider: 'brave',
        url,
        headers: { accept: 'application/json', 'x-subscription-token': options.apiKey },
        timeoutMs: options.timeoutMs,
        signal,
      });
      if (!answer.ok) return answer;
      const body = answer.json as { web?: { results?: unknown } } | null;
      if (body === null || typeof body !== 'object')
        return { ok: false, failure: { detail: 'brave answered JSON that is not an object', retryable: false } };
      // No `web` section is how Brave says "nothing found".
      const results = body.web?.results ?? [];
      if (!Array.isArray(results))
        return {
          ok: false,
          failure: { detail: 'brave answered JSON whose web.results is not an array', retryable: false },
        };
      const hits: SearchHit[] = (results as BraveResult[])
        .filter((r) => isWebUrl(r?.url))
        .map((r) => ({ title: plainText(r.title), url: r.url as string, snippet: plainText(r.description) }));
      return { ok: true, results: hits.slice(0, count) };
    },
  };
}
