// The CPU work of a fetch as tasks with plain-data inputs and results, so the same functions run in this thread or on
// a worker thread (conversions.ts): a response's body → page (HTML extraction, Markdown, text; documents), a
// rendered page's HTML → content (and the HTML compressed, when it is to be kept), a reader provider's Markdown →
// content, a caller's selection of a page's kept HTML, each with its token counts.
import { extractHtml, type ExtractedContent } from '../extract/index.js';
import { extractSelection, type SelectedContent, type Selection } from '../extract/selection.js';
import type { HttpResponse } from '../net/safe-client.js';
import { countTokens } from '../tokens/count.js';
import { convertHtmlResponse } from './html.js';
import { packHtml, unpackHtml } from './kept-html.js';
import { convertDocument, type DocumentOptions } from './documents/index.js';
import type { DocumentLimits } from './documents/types.js';
import { convertReaderContent, type ReaderContent } from './reader-content.js';
import type { DocumentRequest, FetchOutcome, TokenCounts } from './types.js';

/** An HttpResponse as it crosses to a thread: a URL object cannot be copied, and a Buffer arrives as a Uint8Array. */
export interface WireResponse extends Omit<HttpResponse, 'url' | 'body'> {
  url: string;
  body: Uint8Array;
}

export type CountedContent = ExtractedContent & { tokens: TokenCounts; htmlBrotli?: Uint8Array };
export type CountedSelection = SelectedContent & { tokens: TokenCounts };

export function toWire(response: HttpResponse): WireResponse {
  return { ...response, url: response.url.href };
}

function fromWire(wire: WireResponse): HttpResponse {
  const body = Buffer.from(wire.body.buffer, wire.body.byteOffset, wire.body.byteLength);
  return { ...wire, url: new URL(wire.url), body };
}

const countBoth = (content: { markdown: string; text: string }): TokenCounts => ({
  markdown: countTokens(content.markdown),
  text: countTokens(content.text),
});

function withTokens(outcome: FetchOutcome): FetchOutcome {
  return outcome.ok ? { ok: true, page: { ...outcome.page, tokens: countBoth(outcome.page) } } : outcome;
}

export const conversionTasks = {
  html: (input: { response: WireResponse; limits: DocumentLimits }): FetchOutcome =>
    withTokens(convertHtmlResponse(fromWire(input.response), input.limits)),
  /** A binary document (PDF, DOCX, XLSX, ODS, PPTX, EPUB): the `pdf` fetcher's conversion, as the caller asks. */
  pdf: async (input: {
    response: WireResponse;
    options: DocumentOptions;
    request?: DocumentRequest;
  }): Promise<FetchOutcome> =>
    withTokens(await convertDocument(fromWire(input.response), input.options, input.request)),
  /** `keep`: the HTML comes back compressed too (kept-html.ts), for a page that is kept. */
  extract: (input: { html: string; url: string; keep?: boolean }): CountedContent => {
    const content = extractHtml(input.html, input.url);
    const counted = { ...content, tokens: countBoth(content) };
    return input.keep ? { ...counted, htmlBrotli: packHtml(input.html) } : counted;
  },
  /** Null when the provider's Markdown holds no readable text. */
  reader: (input: ReaderContent): CountedContent | null => {
    const content = convertReaderContent(input);
    return content && { ...content, tokens: countBoth(content) };
  },
  /** `htmlBrotli`: the page's kept HTML, as the extraction compressed it. */
  select: (input: { htmlBrotli: Uint8Array; url: string; selection: Selection }): CountedSelection => {
    const content = extractSelection(unpackHtml(input.htmlBrotli), input.url, input.selection);
    return { ...content, tokens: countBoth(content) };
  },
};

export type ConversionTask = keyof typeof conversionTasks;
