// What a response's body is: its magic bytes first (a DOCX served as octet-stream is a DOCX; a "PDF" that is an HTML
// error page is HTML), its declared Content-Type next, its first characters last. Never the URL's extension alone.
import { unzipSync } from 'fflate';
import { mimeOf } from '../../util/media-type.js';
import type { DocumentType } from './types.js';

const PDF_MAGIC = Buffer.from('%PDF-');
/** How far into the body a PDF header may start: the spec allows junk before it and readers accept 1 KiB of it. */
const PDF_MAGIC_WINDOW = 1024;
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

const IMAGE_MAGIC: readonly { bytes: Buffer; at: number }[] = [
  { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), at: 0 }, // PNG
  { bytes: Buffer.from([0xff, 0xd8, 0xff]), at: 0 }, // JPEG
  { bytes: Buffer.from('WEBP'), at: 8 }, // RIFF....WEBP
  { bytes: Buffer.from('GIF8'), at: 0 },
];

/** Declared types of each format, for bodies whose bytes do not say (text formats) or say only "zip". */
const DECLARED: Record<string, DocumentType> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/acrobat': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/epub+zip': 'epub',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/rss+xml': 'rss',
  'application/atom+xml': 'atom',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

/** The entry that names each zip-based format: OOXML by its main part, OpenDocument and EPUB by `mimetype`. */
const ZIP_PARTS: readonly [string, DocumentType][] = [
  ['word/document.xml', 'docx'],
  ['xl/workbook.xml', 'xlsx'],
  ['ppt/presentation.xml', 'pptx'],
];
const ZIP_MIMETYPES: Record<string, DocumentType> = {
  'application/epub+zip': 'epub',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
};

/** The format a media type declares, when it names one a reader handles; null for generic and unknown types. */
export function declaredType(mime: string): DocumentType | null {
  return DECLARED[mime] ?? null;
}

export function hasPdfMagic(body: Buffer): boolean {
  return body.subarray(0, PDF_MAGIC_WINDOW).includes(PDF_MAGIC);
}

/** Entry names from the zip's central directory, nothing inflated; null when it is not a readable zip. */
function zipEntryNames(body: Buffer): string[] | null {
  const names: string[] = [];
  try {
    unzipSync(body, {
      filter: (file) => {
        names.push(file.name);
        return false;
      },
    });
  } catch {
    return null;
  }
  return names;
}

/** A zip's format by its entries: the OOXML main part, or the stored `mimetype` of OpenDocument and EPUB. */
function zipType(body: Buffer): DocumentType | null {
  const names = zipEntryNames(body);
  if (!names) return null;
  for (const [part, type] of ZIP_PARTS) if (names.includes(part)) return type;
  // OpenDocument and EPUB store `mimetype` first and uncompressed, so its text sits right after the local header.
  const nameLength = body.readUInt16LE(26);
  const extraLength = body.readUInt16LE(28);
  if (body.subarray(30, 30 + nameLength).toString('latin1') !== 'mimetype') return null;
  const start = 30 + nameLength + extraLength;
  const mimetype = body
    .subarray(start, start + body.readUInt32LE(18))
    .toString('latin1')
    .trim();
  return ZIP_MIMETYPES[mimetype] ?? null;
}

/** Types servers use when they do not know (or hide) what a file is: its bytes decide. */
export const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/download',
  'application/force-download',
  'application/x-download',
]);
const ZIP_FORMATS: ReadonlySet<DocumentType> = new Set(['docx', 'xlsx', 'ods', 'pptx', 'epub']);

function looksLikeHtml(head: string): boolean {
  return /^(<!doctype html|<html|<head|<body)|<(head|body|p|div)[\s>]/i.test(head);
}

/** A text body's format: a feed by its root element whatever it is served as, else by its declared type. */
function textType(mime: string, head: string): DocumentType | null {
  // An XML declaration, comments and a DOCTYPE (RSS 0.91 names its DTD) may come before the root.
  const root =
    /^(?:<\?xml[^>]*>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[^\]]*\])?\s*>)\s*)*<(rss|feed|rdf:RDF)\b/i
      .exec(head)?.[1]
      ?.toLowerCase();
  if (root && !mime.startsWith('text/html')) return root === 'feed' ? 'atom' : 'rss';
  const declared = DECLARED[mime];
  if (declared) return declared;
  if (mime.endsWith('/json') || mime.endsWith('+json')) return 'json';
  if (mime.endsWith('/xml') || mime.endsWith('+xml')) return 'xml';
  if (mime.startsWith('text/')) return 'text';
  return null;
}

/**
 * The format of a body: magic bytes win over the declared type, in both directions (a DOCX served as octet-stream is
 * a DOCX; an HTML error page served as a DOCX is HTML). A declared binary format whose bytes are neither that format
 * nor HTML stays that format, so its reader says the file is unreadable. Null: nothing a reader turns into text.
 */
export function documentType(contentType: string | undefined, body: Buffer): DocumentType | null {
  const mime = mimeOf(contentType);
  const declared = DECLARED[mime];
  if (body.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return 'pdf';
  if (body.subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC))
    return zipType(body) ?? (declared && ZIP_FORMATS.has(declared) ? declared : null);
  if (IMAGE_MAGIC.some(({ bytes, at }) => body.subarray(at, at + bytes.length).equals(bytes))) return 'image';
  // Junk before the header: PDF readers accept a KiB of it, in a body that says it is a PDF or does not say.
  if ((declared === 'pdf' || GENERIC_TYPES.has(mime)) && hasPdfMagic(body)) return 'pdf';
  const head = body
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (declared && (declared === 'pdf' || ZIP_FORMATS.has(declared))) return looksLikeHtml(head) ? 'html' : declared;
  if (GENERIC_TYPES.has(mime)) {
    if (looksLikeHtml(head)) return 'html';
    return body.subarray(0, 1024).includes(0) ? null : (textType('text/plain', head) ?? 'text');
  }
  return textType(mime, head);
}
