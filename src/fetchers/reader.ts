// The reader fetcher: a client for a Jina-Reader-compatible API (GET `${READER_BASE_URL}${url}`, Bearer key, JSON
// `{code, data: {title, content, url, description, publishedTime}}`). A fallback for sites that refuse us; never used
// when no key is configured.
// The provider's own address is the operator's and not guarded. The router hands it the URL where the guarded
// client's redirects ended (router.ts); the guard checks that target before the provider is asked and the final URL it
// reports after. What the site shows the provider alone, the provider's own DNS answers and whatever it loads beyond
// the page are out of the guard's sight: a self-hosted provider must block private addresses itself
// (docs/operations.md, "Security").
import { errors, request } from 'undici';
import type { FetchFailure } from '../errors.js';
import type { AddressPolicy } from '../net/guard.js';
import { checkTarget } from './browser-guard.js';
import { normaliseDate } from '../extract/metadata/dates.js';
import { detectChallenge } from './challenge.js';
import type { Conversions } from './conversions.js';
import { failed, type Fetcher, type FetchOutcome } from './types.js';

export interface ReaderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  maxBytes: number;
  /** The SSRF guard's policy, for the target and the final URL the provider reports. */
  policy: AddressPolicy;
  /** The provider's Markdown → content, off the event loop (conversions.ts). */
  convert: Conversions['reader'];
}

const readerFailure = (detail: string, retryable: boolean): FetchFailure => ({
  code: 'reader_failed',
  detail: `reader provider: ${detail}`,
  retryable,
});

interface ReaderAnswer {
  code?: unknown;
  status?: unknown;
  data?: { title?: unknown; content?: unknown; url?: unknown; description?: unknown; publishedTime?: unknown } | null;
  readableMessage?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

async function readJson(
  body: AsyncIterable<Buffer | Uint8Array>,
  maxBytes: number,
): Promise<{ json: unknown } | { tooLarge: true } | { invalid: true }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) return { tooLarge: true };
    chunks.push(Buffer.from(chunk));
  }
  try {
    return { json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { invalid: true };
  }
}

/** The guard's verdict on where the provider says it ended up, when that is somewhere else than the target. */
async function refusedFinalUrl(policy: AddressPolicy, target: URL, finalUrl: string): Promise<FetchFailure | null> {
  if (finalUrl === target.href || !URL.canParse(finalUrl)) return null;
  const final = new URL(finalUrl);
  const refused = await checkTarget(policy, final);
  if (refused?.code !== 'blocked_url') return null;
  return {
    ...refused,
    detail: `the reader provider was led from ${target.host} to ${final.host}, which the guard refuses: ${refused.detail}`,
  };
}

export function createReaderFetcher(options: ReaderOptions): Fetcher {
  async function fetchPage(url: URL, signal?: AbortSignal): Promise<FetchOutcome> {
    if (!options.apiKey)
      return failed({
        code: 'fetcher_unavailable',
        detail: 'the reader provider is not configured (READER_API_KEY)',
        retryable: false,
      });
    const refused = await checkTarget(options.policy, url);
    if (refused) return failed(refused);
    const endpoint = options.baseUrl + url.href;
    const deadline = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await request(endpoint, {
        method: 'GET',
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      });
      const read = await readJson(response.body, options.maxBytes);
      if (response.statusCode >= 400) {
        const message = 'json' in read ? text((read.json as ReaderAnswer | null)?.readableMessage) : null;
        return failed(
          readerFailure(
            `answered ${response.statusCode}${message ? `: ${message.slice(0, 200)}` : ''}`,
            response.statusCode === 429 || response.statusCode >= 500,
          ),
        );
      }
      if ('tooLarge' in read) return failed(readerFailure(`answered with more than ${options.maxBytes} bytes`, false));
      if ('invalid' in read) return failed(readerFailure('answered with something that is not JSON', false));
      const answer = read.json as ReaderAnswer | null;
      const code = typeof answer?.code === 'number' ? answer.code : 200;
      const content = text(answer?.data?.content);
      if (code !== 200 || !content)
        return failed(readerFailure(code !== 200 ? `answered code ${code}` : 'returned no content', code >= 500));
      const title = text(answer?.data?.title);
      // A reader that fetched a challenge page returns it as content; it is not the page either.
      const challenge = detectChallenge({ status: 200, headers: {}, html: `<title>${title ?? ''}</title>${content}` });
      if (challenge)
        return failed({
          code: 'blocked_by_site',
          detail: `${url.host} showed the reader provider a bot challenge too (${challenge})`,
          retryable: true,
        });
      const converted = await options.convert({ markdown: content, url: url.href, title });
      if (!converted.ok) return failed(converted.failure);
      const extracted = converted.content;
      if (!extracted) return failed(readerFailure('returned no readable text', false));
      const finalUrl = text(answer?.data?.url) ?? url.href;
      const inward = await refusedFinalUrl(options.policy, url, finalUrl);
      if (inward) return failed(inward);
      return {
        ok: true,
        page: {
          url: URL.canParse(finalUrl) ? finalUrl : url.href,
          statusCode: 200,
          contentType: 'text/markdown',
          title: title ?? extracted.title,
          description: text(answer?.data?.description),
          language: null,
          // The provider passes on the page's publication date; author, site name and image it does not give.
          ...extracted.details,
          publishedAt: normaliseDate(text(answer?.data?.publishedTime)),
          markdown: extracted.markdown,
          text: extracted.text,
          tokens: extracted.tokens,
          redirects: 0,
          bytes: Buffer.byteLength(content),
          bodyTruncated: false,
        },
      };
    } catch (error) {
      if (deadline.aborted) return failed(readerFailure(`did not answer within ${options.timeoutMs} ms`, true));
      if (signal?.aborted) return failed(readerFailure('the request was cancelled', true));
      if (error instanceof errors.UndiciError || error instanceof Error) {
        const code = (error as { code?: string }).code;
        return failed(readerFailure(`could not be reached${code ? ` (${code})` : ''}`, true));
      }
      throw error;
    }
  }

  return {
    name: 'reader',
    unavailable: () => (options.apiKey ? null : 'not configured (READER_API_KEY)'),
    fetch: (url, fetchOptions = {}) => fetchPage(url, fetchOptions.signal),
  };
}
