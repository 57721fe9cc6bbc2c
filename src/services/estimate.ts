// Token estimates without downloading the body: exact from the cache, else Content-Length × a calibrated ratio.
import { failureToError } from '../errors.js';
import { isUnreadableType } from '../fetchers/content-type.js';
import type { SafeClient, HttpResponse } from '../net/safe-client.js';
import { parseTargetUrl, type FetchService } from './fetch-service.js';

/**
 * Tokens of extracted Markdown per byte of raw body, by kind of content. HTML was calibrated on the 181 pages of
 * shared/bench/extraction: the mean over pages of (o200k tokens of our Markdown / HTML bytes) is 0.0125 (the ratio
 * of sums, 0.0074, is dominated by a few script-heavy pages; an estimate is for one page, so the per-page mean is
 * used). `npm run bench` prints both again. Plain text and Markdown are ~4 bytes per token in English prose.
 */
export const TOKENS_PER_BYTE = { html: 0.0125, text: 0.25, other: 0.1 } as const;

/** HEAD answers that mean "this server does not do HEAD", not "the page is missing". */
const HEAD_REFUSED = new Set([400, 403, 405, 406, 501]);

export interface Estimate {
  url: string;
  estimated_tokens: number;
  confident: boolean;
  source: 'cache' | 'head' | 'range';
  content_type: string | null;
  content_length: number | null;
}

function kindOf(contentType: string | null): keyof typeof TOKENS_PER_BYTE {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === 'text/html' || mime === 'application/xhtml+xml' || mime === '') return 'html';
  if (mime.startsWith('text/') || mime.endsWith('json') || mime.endsWith('xml')) return 'text';
  return 'other';
}

function lengthOf(response: HttpResponse): number | null {
  const range = /\/(\d+)\s*$/.exec(response.headers['content-range'] ?? '');
  const raw = response.status === 206 && range ? range[1] : response.headers['content-length'];
  const length = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

export function createEstimator(deps: { client: SafeClient; fetchService: FetchService }) {
  const { client, fetchService } = deps;

  async function probe(url: URL): Promise<{ response: HttpResponse; source: 'head' | 'range' }> {
    const headers = { 'accept-encoding': 'identity' };
    const head = await client.request(url, { method: 'HEAD', headers });
    if (!head.ok) throw failureToError(head.failure);
    if (!HEAD_REFUSED.has(head.response.status)) return { response: head.response, source: 'head' };
    const ranged = await client.request(url, {
      method: 'GET',
      headers: { ...headers, range: 'bytes=0-0' },
      maxBytes: 1024,
    });
    if (!ranged.ok) throw failureToError(ranged.failure);
    return { response: ranged.response, source: 'range' };
  }

  return async function estimate(rawUrl: string): Promise<Estimate> {
    const url = parseTargetUrl(rawUrl, ['query', 'url']);
    const cached = await fetchService.lookupCached(url);
    if (cached) {
      const page = cached.value;
      return {
        url: rawUrl,
        estimated_tokens: page.tokens.markdown,
        confident: true,
        source: 'cache',
        content_type: page.contentType,
        content_length: page.bytes,
      };
    }
    const { response, source } = await probe(url);
    if (response.status >= 400) {
      throw failureToError({
        code: 'upstream_status',
        detail: `${url.host} answered ${response.status}`,
        retryable: false,
        upstreamStatus: response.status,
      });
    }
    const contentType = response.headers['content-type'] ?? null;
    // What /fetch would refuse (an image, an archive) has no tokens to estimate: the same 415, before any body is read.
    if (isUnreadableType(contentType ?? undefined)) {
      throw failureToError({
        code: 'unsupported_content',
        detail: `content of type ${contentType} cannot be turned into text`,
        retryable: false,
      });
    }
    const length = lengthOf(response);
    return {
      url: rawUrl,
      estimated_tokens: length === null ? 0 : Math.max(1, Math.round(length * TOKENS_PER_BYTE[kindOf(contentType)])),
      confident: length !== null,
      source,
      content_type: contentType,
      content_length: length,
    };
  };
}

export type Estimator = ReturnType<typeof createEstimator>;
