// The document extractor behind the `pdf` fetcher: binary files by what their bytes are (sniff.ts), each read by its
// format's reader within DocumentLimits into Markdown with its structure, then made a page like any other.
import { contentFromMarkdown } from '../../extract/index.js';
import type { HttpResponse } from '../../net/safe-client.js';
import { emptyFailure, isEmptyContent, statusFailure } from '../html.js';
import { convertPdf } from '../pdf.js';
import { failed, type DocumentRequest, type FetchOutcome } from '../types.js';
import { documentType } from './sniff.js';
import {
  FORMAT_NAMES,
  UnreadableDocument,
  unreadableFailure,
  type DocumentLimits,
  type DocumentText,
  type DocumentType,
} from './types.js';

export interface DocumentOptions {
  maxPages: number;
  limits: DocumentLimits;
}

type Reader = (body: Buffer, limits: DocumentLimits) => Promise<DocumentText>;

/** Each format's reader, loaded on its first file: their libraries are megabytes that most threads never need. */
const READERS: Partial<Record<DocumentType, () => Promise<Reader>>> = {
  docx: () => import('./docx.js').then((module) => module.readDocx),
  image: () => import('./image.js').then((module) => module.readImage),
  pptx: () => import('./pptx.js').then((module) => module.readPptx),
  epub: () => import('./epub.js').then((module) => module.readEpub),
  xlsx: () => import('./xlsx.js').then((module) => module.readXlsx),
  ods: () => import('./ods.js').then((module) => module.readOds),
};

/** A reader's text → the page every surface renders; Markdown tidied, its title on top, empty files refused. */
export function documentPage(response: HttpResponse, type: DocumentType, document: DocumentText): FetchOutcome {
  const content = contentFromMarkdown(document.markdown, response.url.href);
  const title = document.title ?? content.title;
  const markdown = title && !/^# /.test(content.markdown) ? `# ${title}\n\n${content.markdown}` : content.markdown;
  const page = {
    url: response.url.href,
    statusCode: response.status,
    contentType: response.headers['content-type'] ?? 'application/octet-stream',
    title,
    description: document.description ?? null,
    language: document.language ?? null,
    author: document.author ?? null,
    publishedAt: document.publishedAt ?? null,
    siteName: null,
    canonicalUrl: null,
    image: null,
    markdown,
    text: markdown === content.markdown ? content.text : `${title}\n\n${content.text}`,
    redirects: response.redirects,
    bytes: response.bytes,
    bodyTruncated: response.bodyTruncated || !!document.truncated,
    documentType: type,
    ...(document.pageCount !== undefined && { pageCount: document.pageCount }),
    ...(document.ocrPages && { ocrPages: document.ocrPages }),
  };
  return isEmptyContent(page)
    ? failed(emptyFailure(page.url, `(a ${FORMAT_NAMES[type]} file) has no text`))
    : { ok: true, page };
}

/**
 * A binary document response → page; failures name the format when the file cannot be read as it. `request`: what the
 * caller asks of a document (pages, page marks), which only the PDF reader takes.
 */
export async function convertDocument(
  response: HttpResponse,
  options: DocumentOptions,
  request?: DocumentRequest,
): Promise<FetchOutcome> {
  if (response.status >= 300) return failed(statusFailure(response));
  const host = response.url.host;
  const type = documentType(response.headers['content-type'], response.body);
  if (type === 'pdf') {
    const pdf = { ...request, maxPages: options.maxPages, maxOcrPages: options.limits.maxOcrPages };
    const outcome = await convertPdf(response, pdf);
    return outcome.ok ? { ok: true, page: { ...outcome.page, documentType: 'pdf' } } : outcome;
  }
  // With OCR off (OCR_MAX_PAGES=0) an image has no reader.
  const load = type && !(type === 'image' && options.limits.maxOcrPages === 0) && READERS[type];
  if (!load)
    return failed({
      code: 'unsupported_content',
      detail: `${host}: the response is ${type ? `a ${FORMAT_NAMES[type]} file` : 'not a document'}, which the pdf fetcher does not read`,
      retryable: false,
    });
  try {
    const read = await load();
    return documentPage(response, type, await read(response.body, options.limits));
  } catch (error) {
    if (!(error instanceof UnreadableDocument)) throw error;
    return failed(unreadableFailure(response, error));
  }
}
