// Fetches up to 20 URLs at once: results in input order, a failure becomes that item's error, never the batch's.
import { AppError, ValidationError, renderError } from '../errors.js';
import type { MarkdownStyle } from '../extract/link-style.js';
import type { FetchResult } from '../http/schemas.js';
import type { FetchService } from './fetch-service.js';

export interface BatchItemError {
  url: string;
  error: { status: number; code: string; detail: string };
}

export interface BatchOptions {
  urls: string[];
  maxTokensEach: number | null;
  useCache: boolean;
  style?: MarkdownStyle;
}

function toItemError(url: string, error: unknown): BatchItemError {
  if (error instanceof ValidationError) {
    return { url, error: { status: 422, code: 'validation_error', detail: error.issues.map((i) => i.msg).join('; ') } };
  }
  const { status, body } = renderError(error);
  const code = error instanceof AppError ? error.code : 'internal_error';
  return { url, error: { status, code, detail: typeof body.detail === 'string' ? body.detail : 'internal error' } };
}

export async function fetchBatch(service: FetchService, options: BatchOptions): Promise<{ results: (FetchResult | BatchItemError)[] }> {
  // Identical URLs share one fetch; the global limiter inside the service bounds sockets across batches.
  const byUrl = new Map<string, Promise<FetchResult | BatchItemError>>();
  const results = options.urls.map((url, index) => {
    let pending = byUrl.get(url);
    if (!pending) {
      pending = service
        .fetchOne({ url, maxTokens: options.maxTokensEach, format: 'markdown', useCache: options.useCache, style: options.style }, ['body', 'urls', index])
        .catch((error: unknown) => toItemError(url, error));
      byUrl.set(url, pending);
    }
    return pending;
  });
  return { results: await Promise.all(results) };
}
