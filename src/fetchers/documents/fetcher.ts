// The `pdf` fetcher, the document extractor: one guarded GET asking for a PDF first, then the body read by what it is
// (documents/index.ts): PDF, DOCX, XLSX, ODS, PPTX or EPUB.
import type { HttpResponse, SafeClient } from '../../net/safe-client.js';
import { ACCEPT } from '../html.js';
import type { DocumentRequest, FetchOutcome, ResponseConverter } from '../types.js';
import { convertDocument, type DocumentOptions } from './index.js';

/** deps.convert: where the document is read (conversions.ts: an extraction thread); in this thread when left out. */
export function createDocumentFetcher(deps: {
  client: SafeClient;
  options: DocumentOptions;
  convert?: (response: HttpResponse, request?: DocumentRequest) => Promise<FetchOutcome>;
}): ResponseConverter {
  const convert =
    deps.convert ??
    ((response: HttpResponse, request?: DocumentRequest) => convertDocument(response, deps.options, request));
  return {
    name: 'pdf',
    unavailable: () => null,
    convert,
    async fetch(url, fetchOptions = {}) {
      const result = await deps.client.request(url, {
        headers: { accept: `application/pdf, ${ACCEPT}` },
        originHeaders: fetchOptions.page?.headers,
        signal: fetchOptions.signal,
      });
      if (!result.ok) return result;
      return convert(result.response, fetchOptions.document);
    },
  };
}
