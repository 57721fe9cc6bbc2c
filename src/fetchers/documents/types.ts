// What the document readers share: the formats the router tells apart, what a reader hands back, the limits every
// reader keeps, and the one failure for a file that is not what it claims to be.
import type { FetchFailure } from '../../errors.js';
import type { HttpResponse } from '../../net/safe-client.js';

/** `fetch_info.document_type`: what the bytes were, decided by content type and magic bytes together. */
export const DOCUMENT_TYPES = [
  'html',
  'pdf',
  'docx',
  'xlsx',
  'ods',
  'csv',
  'pptx',
  'epub',
  'rss',
  'atom',
  'json',
  'xml',
  'markdown',
  'text',
  'image',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Formats read by the document extractor (the `pdf` fetcher) rather than the html fetcher: binary files. */
export const BINARY_DOCUMENTS: ReadonlySet<DocumentType> = new Set(['pdf', 'docx', 'xlsx', 'ods', 'pptx', 'epub']);

/** Names in errors and notes, as people write them. */
export const FORMAT_NAMES: Record<DocumentType, string> = {
  html: 'HTML',
  pdf: 'PDF',
  docx: 'DOCX',
  xlsx: 'XLSX',
  ods: 'ODS',
  csv: 'CSV',
  pptx: 'PPTX',
  epub: 'EPUB',
  rss: 'RSS',
  atom: 'Atom',
  json: 'JSON',
  xml: 'XML',
  markdown: 'Markdown',
  text: 'text',
  image: 'image',
};

/** What a reader makes of a file: Markdown with its structure, and what the file says about itself. */
export interface DocumentText {
  title: string | null;
  markdown: string;
  author?: string | null;
  description?: string | null;
  language?: string | null;
  publishedAt?: string | null;
  /** Pages, slides or sheets in the file. */
  pageCount?: number;
  /** Part of the file was left out (rows past the cap): the Markdown says what, in a closing note. */
  truncated?: boolean;
  /** Pages read by OCR (images, PDF pages without a text layer). */
  ocrPages?: number;
}

/** Bounds on what one file may cost to read: zip bombs and million-row sheets stop here, not in memory. */
export interface DocumentLimits {
  /** Entries a zip-based file (DOCX, XLSX, PPTX, ODS, EPUB) may hold. */
  maxEntries: number;
  /** Bytes its entries may inflate to, all together. */
  maxUncompressedBytes: number;
  /** Rows read from each sheet of a spreadsheet or CSV; the rest are counted and named in a note. */
  maxRows: number;
  /** Pages (images, PDF pages without a text layer) read by OCR in one document; 0 turns OCR off. */
  maxOcrPages: number;
}

/** A file that cannot be read as the format it is: corrupt, truncated, encrypted, or a zip bomb (422). */
export class UnreadableDocument extends Error {
  constructor(
    readonly type: DocumentType,
    why: string,
  ) {
    super(`the ${FORMAT_NAMES[type]} file ${why}`);
  }
}

/** The 422 for an unreadable file, whichever fetcher read it: a body cut at FETCH_MAX_BYTES is the likely cause. */
export function unreadableFailure(response: HttpResponse, error: UnreadableDocument): FetchFailure {
  const cut = response.bodyTruncated
    ? ` (it is larger than FETCH_MAX_BYTES, ${response.bytes} bytes, and was cut there)`
    : '';
  return { code: 'unreadable_document', detail: `${response.url.host}: ${error.message}${cut}`, retryable: false };
}
