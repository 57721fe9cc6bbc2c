// SearXNG's JSON API (GET /search?q=…&format=json): self-hosted, no key; results[].title/url/content.
import { getJson, isWebUrl, joinUrl } from './http.js';
import type { SearchHit, SearchProvider } from './types.js';

export interface SearxngOptions {
  baseUrl: string;
  timeoutMs: number;
  userAgent: string;
}

interface SearxngResult {
  title?: unknown;
  url?: unknown;
  content?: unknown;
}

export function createSearxngProvider(options: SearxngOptions): SearchProvider {
  return {
    name: 'searxng',
    async search(query, count, signal) {
      const url = joinUrl(options.baseUrl, '/search');
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const answer = await getJson({
        provider: 'searxng',
        url,
        headers: { accept: 'application/json', 'user-agent': options.userAgent },
        timeoutMs: options.timeoutMs,
        signal,
      });
      if (!answer.ok) return answer;
      const results = (answer.json as { results?: unknown } | null)?.results;
      if (!Array.isArray(results))
        return { ok: false, failure: { detail: 'searxng answered JSON without a results array', retryable: false } };
      // SearXNG has no count parameter: it answers a page of merged results, which we cut.
      const hits: SearchHit[] = (results as SearxngResult[])
        .filter((r) => isWebUrl(r?.url))
        .map((r) => ({ title: text(r.title), url: r.url as string, snippet: text(r.content) }));
      return { ok: true, results: hits.slice(0, count) };
    },
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}
