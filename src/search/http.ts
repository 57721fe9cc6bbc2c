// GET a provider's JSON API with undici. Deliberately not through the SSRF guard: the provider's address comes from the
// operator's config, not from a caller (the result URLs a caller gets are fetched through the guarded pipeline).
import { errors, request } from 'undici';
import type { SearchFailure } from './types.js';

export interface JsonRequest {
  provider: string;
  url: URL;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type JsonOutcome = { ok: true; json: unknown } | { ok: false; failure: SearchFailure };

/** Answers are a page of hits; anything near this size is not a search result page. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

const STATUS_HINTS: Record<number, string> = {
  401: 'the API key was refused: check SEARCH_API_KEY',
  403: 'access refused: check SEARCH_API_KEY, or for SearXNG enable the json format (search.formats in settings.yml)',
  429: 'the provider is rate limiting this server; retry later',
};

export async function getJson(req: JsonRequest): Promise<JsonOutcome> {
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signals = [deadline, ...(req.signal ? [req.signal] : [])];
  try {
    const response = await request(req.url, { method: 'GET', headers: req.headers, signal: AbortSignal.any(signals) });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        return fail(`${req.provider} answered with more than ${MAX_BODY_BYTES} bytes`, false);
      }
      chunks.push(chunk as Buffer);
    }
    if (response.statusCode >= 400) {
      const hint =
        STATUS_HINTS[response.statusCode] ?? (response.statusCode >= 500 ? 'the provider is failing; retry later' : '');
      return fail(
        `${req.provider} answered ${response.statusCode}${hint ? `: ${hint}` : ''}`,
        response.statusCode === 429 || response.statusCode >= 500,
      );
    }
    try {
      return { ok: true, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
    } catch {
      return fail(`${req.provider} answered with something that is not JSON`, false);
    }
  } catch (error) {
    if (deadline.aborted || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
      return fail(`${req.provider} did not answer within ${req.timeoutMs} ms`, true);
    }
    if (req.signal?.aborted) return fail(`the ${req.provider} request was cancelled`, false);
    const code = (error as { code?: string } | null)?.code;
    return fail(`${req.provider} at ${req.url.host} could not be reached${code ? ` (${code})` : ''}`, true);
  }
}

function fail(detail: string, retryable: boolean): JsonOutcome {
  return { ok: false, failure: { detail, retryable } };
}

/** Keeps the hits a fetcher can follow: absolute http(s) URLs. */
export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Joins a configured base URL (with or without a trailing slash or a path prefix) and an API path. */
export function joinUrl(base: string, path: string): URL {
  return new URL(base.replace(/\/+$/, '') + path);
}
