// The simple-HTML fetcher: one guarded GET, then main-content extraction (or the publisher's own Markdown as is).
// It also converts the bodies of any other textual type (plain text, JSON, XML); the router hands it responses it got.
import type { FetchFailure } from '../errors.js';
import { contentFromMarkdown, extractHtml, type ExtractedContent } from '../extract/index.js';
import { decodeBody } from '../net/charset.js';
import type { HttpResponse, SafeClient } from '../net/safe-client.js';
import { isHtmlType, isTextual } from './content-type.js';
import { mimeOf } from '../util/media-type.js';
import { packHtml } from './kept-html.js';
import { failed, type FetchedPage, type FetchOutcome, type ResponseConverter } from './types.js';

/** Publisher Markdown first (llms-friendly sites answer it), HTML next, anything textual last. */
export const ACCEPT = 'text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.5';

const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);

function unsupported(mime: string): FetchFailure {
  return {
    code: 'unsupported_content',
    detail: `content of type ${mime || 'unknown'} cannot be turned into text`,
    retryable: false,
  };
}

/** The failure for an error page: never content, never cached. */
export function statusFailure(response: HttpResponse): FetchFailure {
  const status = response.status;
  return {
    code: 'upstream_status',
    detail: `${response.url.host} answered ${status}`,
    retryable: status >= 500 || status === 429,
    upstreamStatus: status,
  };
}

/** Decides how a body becomes content; null when it cannot be read as text. */
function convert(
  body: Buffer,
  contentType: string | undefined,
  pageUrl: string,
): { content: ExtractedContent; sourceMarkdown: boolean; html?: string } | null {
  let mime = mimeOf(contentType);
  const decoded = () => decodeBody(body, contentType);
  if (!mime) {
    // No Content-Type: sniff the way browsers do for the two cases that matter.
    const head = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
    if (head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body|p|div)[\s>]/.test(head))
      mime = 'text/html';
    else if (!body.subarray(0, 512).includes(0)) mime = 'text/plain';
  }
  if (isHtmlType(mime)) {
    const html = decoded();
    return { content: extractHtml(html, pageUrl), sourceMarkdown: false, html };
  }
  if (MARKDOWN_TYPES.has(mime)) return { content: contentFromMarkdown(decoded(), pageUrl), sourceMarkdown: true };
  if (mime.endsWith('json'))
    return { content: contentFromMarkdown('```json\n' + decoded().trim() + '\n```', pageUrl), sourceMarkdown: false };
  if (mime.endsWith('xml'))
    return { content: contentFromMarkdown('```xml\n' + decoded().trim() + '\n```', pageUrl), sourceMarkdown: false };
  if (isTextual(mime)) return { content: contentFromMarkdown(decoded(), pageUrl), sourceMarkdown: false };
  return null;
}

/**
 * Content without a single word of body text is not content (an empty page, a bare title, a lone image): it is
 * neither billed nor cached. Read from the plain text, which has no link targets; its leading title line is not body.
 */
export function isEmptyContent(content: { text: string; title: string | null }): boolean {
  const text =
    content.title && content.text.startsWith(content.title) ? content.text.slice(content.title.length) : content.text;
  return !/[\p{L}\p{N}]/u.test(text);
}

export function emptyFailure(url: string, why = 'has no readable text'): FetchFailure {
  return { code: 'empty_content', detail: `${new URL(url).host}: the page ${why}`, retryable: false };
}

/** A 2xx response → the page; other statuses, unreadable types and empty extractions are failures. */
export function convertHtmlResponse(response: HttpResponse): FetchOutcome {
  if (response.status >= 300) return failed(statusFailure(response));
  const contentType = response.headers['content-type'];
  const converted = convert(response.body, contentType, response.url.href);
  if (!converted) return failed(unsupported(mimeOf(contentType)));
  const { content, sourceMarkdown, html } = converted;
  const page: FetchedPage = {
    url: response.url.href,
    statusCode: response.status,
    contentType: contentType ?? 'application/octet-stream',
    title: content.title,
    description: content.description,
    language: content.language ?? response.headers['content-language']?.split(',')[0]?.trim() ?? null,
    ...content.details,
    markdown: content.markdown,
    text: content.text,
    redirects: response.redirects,
    bytes: response.bytes,
    bodyTruncated: response.bodyTruncated,
    sourceMarkdown,
  };
  if (isEmptyContent(page)) return failed(emptyFailure(page.url));
  if (html !== undefined) page.htmlBrotli = packHtml(html);
  return { ok: true, page };
}

/** deps.convert: where the body is converted (conversions.ts: an extraction thread); in this thread when left out. */
export function createHtmlFetcher(deps: {
  client: SafeClient;
  convert?: (response: HttpResponse) => Promise<FetchOutcome>;
}): ResponseConverter {
  const convert = deps.convert ?? (async (response: HttpResponse) => convertHtmlResponse(response));
  return {
    name: 'html',
    unavailable: () => null,
    convert,
    async fetch(url, options = {}) {
      const result = await deps.client.request(url, {
        headers: { accept: ACCEPT },
        originHeaders: options.page?.headers,
        signal: options.signal,
      });
      if (!result.ok) return result;
      return convert(result.response);
    },
  };
}
