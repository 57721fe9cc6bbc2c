// The simple-HTML fetcher: one guarded GET, then main-content extraction (or the publisher's own Markdown as is).
// It also converts the bodies of the text formats (Markdown, plain text, CSV, feeds, JSON, XML); the router hands it
// responses it got.
import type { FetchFailure } from '../errors.js';
import { contentFromMarkdown, extractHtml, type ExtractedContent } from '../extract/index.js';
import { decodeBody } from '../net/charset.js';
import type { HttpResponse, SafeClient } from '../net/safe-client.js';
import { readJson } from './documents/json.js';
import { readCsv } from './documents/csv.js';
import { readAtom, readRss } from './documents/feeds.js';
import { documentType } from './documents/sniff.js';
import {
  UnreadableDocument,
  unreadableFailure,
  type DocumentLimits,
  type DocumentText,
  type DocumentType,
} from './documents/types.js';
import { mimeOf } from '../util/media-type.js';
import { packHtml } from './kept-html.js';
import { failed, type FetchedPage, type FetchOutcome, type ResponseConverter } from './types.js';

/** Publisher Markdown first (llms-friendly sites answer it), HTML next, anything textual last. */
export const ACCEPT = 'text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.5';

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

/** Text formats with a reader of their own (documents/): their Markdown is built, not extracted. */
const TEXT_READERS: Partial<Record<DocumentType, (text: string, limits: DocumentLimits) => DocumentText>> = {
  rss: readRss,
  atom: readAtom,
  csv: readCsv,
  json: readJson,
};

const fenced = (language: string, code: string) => '```' + language + '\n' + code.trim() + '\n```';

/** Decides how a body becomes content by what it is (documents/sniff.ts); null when it is not text. */
function convert(
  body: Buffer,
  contentType: string | undefined,
  pageUrl: string,
  limits: DocumentLimits,
): {
  content: ExtractedContent;
  type: DocumentType;
  sourceMarkdown?: boolean;
  html?: string;
  /** A reader left part of the body out (rows past the cap). */
  truncated?: boolean;
} | null {
  const type = documentType(contentType, body);
  const decoded = () => decodeBody(body, contentType);
  const read = type && TEXT_READERS[type];
  if (read) {
    const document = read(decoded(), limits);
    const content = contentFromMarkdown(document.markdown, pageUrl);
    return { content: { ...content, title: document.title ?? content.title }, type, truncated: document.truncated };
  }
  switch (type) {
    case 'html': {
      const html = decoded();
      return { content: extractHtml(html, pageUrl), type, html };
    }
    case 'markdown':
      return { content: contentFromMarkdown(decoded(), pageUrl), type, sourceMarkdown: true };
    case 'xml':
      return { content: contentFromMarkdown(fenced(type, decoded()), pageUrl), type };
    case 'text':
      return { content: contentFromMarkdown(decoded(), pageUrl), type };
    default:
      return null;
  }
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
export function convertHtmlResponse(response: HttpResponse, limits: DocumentLimits): FetchOutcome {
  if (response.status >= 300) return failed(statusFailure(response));
  const contentType = response.headers['content-type'];
  let converted: ReturnType<typeof convert>;
  try {
    converted = convert(response.body, contentType, response.url.href, limits);
  } catch (error) {
    if (error instanceof UnreadableDocument) return failed(unreadableFailure(response, error));
    throw error;
  }
  if (!converted) return failed(unsupported(mimeOf(contentType)));
  const { content, type, sourceMarkdown = false, html, truncated = false } = converted;
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
    bodyTruncated: response.bodyTruncated || truncated,
    sourceMarkdown,
    documentType: type,
  };
  if (isEmptyContent(page)) return failed(emptyFailure(page.url));
  if (html !== undefined) page.htmlBrotli = packHtml(html);
  return { ok: true, page };
}

/** deps.convert: where the body is converted (conversions.ts: an extraction thread); in this thread when left out. */
export function createHtmlFetcher(deps: {
  client: SafeClient;
  limits: DocumentLimits;
  convert?: (response: HttpResponse) => Promise<FetchOutcome>;
}): ResponseConverter {
  const convert = deps.convert ?? (async (response: HttpResponse) => convertHtmlResponse(response, deps.limits));
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
