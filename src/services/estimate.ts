// Token estimates without downloading the page: exact from the cache; else one GET of at most 64 KB as sent (a range
// of the first 64 KB, compression welcome: most compressed pages then arrive whole), whose extraction (and share of
// scripts and styles) is extrapolated to the full length when the page is longer; HEAD when ranges are refused.
import { failureToError } from '../errors.js';
import type { Conversions } from '../fetchers/conversions.js';
import { isHtmlType, isUnreadableType } from '../fetchers/content-type.js';
import { decodeBody } from '../net/charset.js';
import { parseEncodings } from '../net/read-body.js';
import type { SafeClient, HttpResponse } from '../net/safe-client.js';
import { countTokens } from '../tokens/count.js';
import { mimeOf } from '../util/media-type.js';
import type { FetchService } from './fetch-service.js';
import { parseTargetUrl } from './page-cache.js';

/** The most an estimate reads of a page's body, in bytes as sent (compressed when the server compresses). */
export const SAMPLE_BYTES = 64 * 1024;
/** The most those bytes may decode to: HTML compresses 4–10×, far more is a compression bomb, cut here. */
const DECODED_BYTES = 32 * SAMPLE_BYTES;

/**
 * Tokens of extracted Markdown per byte of raw body, for the HEAD fallback (no body to look at). HTML: the per-page
 * mean over shared/bench/extraction (`npm run bench` prints it again); plain text and Markdown ~4 bytes per token.
 */
export const TOKENS_PER_BYTE = { html: 0.0125, text: 0.25, other: 0.1 } as const;

/**
 * An HTML page longer than its uncompressed sample, from the tokens extraction finds in the first 64 KB (t), the
 * length (L), the sample's size (S) and the share of it that is <script>, <style>, <svg>, <noscript> or <template>
 * (s): the larger of a log-linear fit, ln(tokens + 1) = a + b·ln(t + 1) + c·ln(L) + d·s, which pulls towards
 * typical pages, and the sample's own content density carried over the rest of the page's markup,
 * k·t·(L − sS)/(S − sS), which holds for long articles. Fitted by least squares (k chosen from 0.3, 0.5, 0.7, 1) on
 * one seventh of the WCXB dev pages (every 7th from the 4th), disjoint from the seventh that `npm run bench:estimate`
 * scores (every 7th from the 1st).
 */
const HTML_MODEL = { a: 1.382, b: 0.2879, c: 0.3643, d: 0.4356, k: 0.7 } as const;

/** Answers to a ranged GET that mean "no ranges here" (or no GET), not "the page is missing". */
const RANGE_REFUSED = new Set([400, 403, 405, 406, 416, 501]);

export type EstimateMethod = 'cache' | 'whole' | 'sample' | 'whole_compressed' | 'sample_compressed' | 'length';

export interface Estimate {
  url: string;
  estimated_tokens: number;
  confident: boolean;
  source: 'cache' | 'head' | 'range';
  method: EstimateMethod;
  content_type: string | null;
  content_length: number | null;
}

function kindOf(contentType: string | null): keyof typeof TOKENS_PER_BYTE {
  const mime = mimeOf(contentType ?? undefined);
  if (mime === '' || isHtmlType(mime)) return 'html';
  if (mime.startsWith('text/') || mime.endsWith('json') || mime.endsWith('xml')) return 'text';
  return 'other';
}

/** The body's length as sent: Content-Range's total on a 206, else Content-Length (encoded when compressed). */
function lengthOf(response: HttpResponse): number | null {
  const range = /\/(\d+)\s*$/.exec(response.headers['content-range'] ?? '');
  const raw = response.status === 206 && range ? range[1] : response.headers['content-length'];
  const length = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/** Elements whose bytes are code, not text: their share of a sample is one of the model's inputs. */
export const CODE = /<(script|style|svg|noscript|template)\b[\s\S]*?(?:<\/\1\s*>|$)/gi;

/**
 * A compressed sample decodes to several times 64 KB, most often past the page's main content (the rest is footer and
 * scripts), so its own tokens are the estimate; unless it is nearly all script and style (an app shell whose content
 * comes later), when the unseen rest counts at a ratio per byte. Chosen on the compressed samples of the calibration
 * seventh (every 7th WCXB dev page from the 4th; 39 pages over 64 KB gzipped): within 2× on 36 % of them with
 * HTML_MODEL, 67 % with the sample's tokens alone, 77 % with this.
 */
const COMPRESSED_MODEL = { scriptShare: 0.9, restTokensPerByte: 0.003 } as const;

/**
 * Tokens of the content in `sample` (the whole body when `length` is null), extrapolated to `length` decoded bytes
 * when not whole; `compressed` when the sample was sent compressed.
 */
async function tokensFromSample(
  extract: Conversions['extract'],
  sample: Buffer,
  contentType: string | null,
  url: string,
  length: number | null,
  compressed: boolean,
): Promise<number> {
  const kind = kindOf(contentType);
  if (kind === 'other') return Math.round((length ?? sample.length) * TOKENS_PER_BYTE.other);
  const text = decodeBody(sample, contentType ?? undefined);
  if (kind === 'text') {
    const tokens = countTokens(text);
    return length === null || sample.length === 0 ? tokens : Math.round((tokens * length) / sample.length);
  }
  // Up to DECODED_BYTES of HTML: extracted on a thread like a fetched page, so an estimate never holds the event loop.
  const extracted = await extract(text, url);
  if (!extracted.ok) throw failureToError(extracted.failure);
  const tokens = extracted.content.tokens.markdown;
  if (length === null) return tokens;
  const codeShare = text.length === 0 ? 0 : (text.length - text.replace(CODE, '').length) / text.length;
  if (compressed) {
    const { scriptShare, restTokensPerByte } = COMPRESSED_MODEL;
    const rest = Math.max(0, length - sample.length);
    return codeShare < scriptShare ? tokens : Math.round(Math.max(tokens, restTokensPerByte * rest));
  }
  const { a, b, c, d, k } = HTML_MODEL;
  const fitted = Math.exp(a + b * Math.log(tokens + 1) + c * Math.log(length) + d * codeShare) - 1;
  const code = codeShare * sample.length;
  const dense = (k * tokens * Math.max(0, length - code)) / Math.max(1, sample.length - code);
  return Math.round(Math.max(fitted, dense));
}

export function createEstimator(deps: {
  client: SafeClient;
  fetchService: FetchService;
  extract: Conversions['extract'];
}) {
  const { client, fetchService, extract } = deps;

  async function request(url: URL, method: 'GET' | 'HEAD', headers: Record<string, string>) {
    const outcome = await client.request(url, {
      method,
      headers,
      maxBytes: DECODED_BYTES,
      maxWireBytes: SAMPLE_BYTES,
    });
    if (!outcome.ok) throw failureToError(outcome.failure);
    return outcome.response;
  }

  function refuseFailures(url: URL, response: HttpResponse): void {
    if (response.status >= 400) {
      throw failureToError({
        code: 'upstream_status',
        detail: `${url.host} answered ${response.status}`,
        retryable: false,
        upstreamStatus: response.status,
      });
    }
    // What /fetch would refuse (an image, an archive) has no tokens to estimate: the same 415.
    const contentType = response.headers['content-type'];
    if (isUnreadableType(contentType)) {
      throw failureToError({
        code: 'unsupported_content',
        detail: `content of type ${contentType} cannot be turned into text`,
        retryable: false,
      });
    }
  }

  return async function estimate(rawUrl: string): Promise<Estimate> {
    const url = parseTargetUrl(rawUrl);
    const cached = await fetchService.lookupCached(url);
    if (cached) {
      const page = cached.value;
      return {
        url: rawUrl,
        estimated_tokens: page.tokens.markdown,
        confident: true,
        source: 'cache',
        method: 'cache',
        content_type: page.contentType,
        content_length: page.bytes,
      };
    }
    // A server that compresses usually ignores the range and sends the whole page compressed: fine, the client stops
    // reading after SAMPLE_BYTES as sent.
    const ranged = await request(url, 'GET', {
      range: `bytes=0-${SAMPLE_BYTES - 1}`,
      'accept-encoding': 'gzip, br',
    });
    if (RANGE_REFUSED.has(ranged.status)) {
      // No ranges: the reported length times a ratio, as good as a length alone allows.
      const head = await request(url, 'HEAD', { 'accept-encoding': 'identity' });
      refuseFailures(url, head);
      const contentType = head.headers['content-type'] ?? null;
      const length = lengthOf(head);
      return {
        url: rawUrl,
        estimated_tokens: length === null ? 0 : Math.max(1, Math.round(length * TOKENS_PER_BYTE[kindOf(contentType)])),
        confident: length !== null,
        source: 'head',
        method: 'length',
        content_type: contentType,
        content_length: length,
      };
    }
    refuseFailures(url, ranged);
    const contentType = ranged.headers['content-type'] ?? null;
    const compressed = parseEncodings(ranged.headers['content-encoding']).length > 0;
    const sent = lengthOf(ranged);
    // Everything was read: the body ended within the limits (a 206 must also have been the whole length).
    const whole = !ranged.bodyTruncated && (ranged.status === 200 || sent === ranged.wireBytes);
    const length = whole ? ranged.body.length : sent === null ? null : decodedLength(ranged, sent, compressed);
    const kind = kindOf(contentType);
    const read = whole ? 'whole' : 'sample';
    return {
      url: rawUrl,
      estimated_tokens: Math.max(
        1,
        await tokensFromSample(extract, ranged.body, contentType, rawUrl, whole ? null : length, compressed),
      ),
      confident: whole || sent !== null,
      source: 'range',
      method: kind === 'other' ? 'length' : compressed ? `${read}_compressed` : read,
      content_type: contentType,
      content_length: whole ? (sent ?? ranged.wireBytes) : sent,
    };
  };
}

/** The decoded length of a page cut after `wireBytes` of its `sent` bytes: compressed, its prefix's ratio holds. */
function decodedLength(response: HttpResponse, sent: number, compressed: boolean): number {
  if (!compressed || response.wireBytes === 0) return sent;
  return Math.round((response.body.length * sent) / response.wireBytes);
}

export type Estimator = ReturnType<typeof createEstimator>;
