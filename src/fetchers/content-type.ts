// What kind of body a response carries: from Content-Type first, sniffed from the first bytes when that says nothing.
import { mimeOf } from '../util/media-type.js';

const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf', 'application/acrobat']);
/**
 * Types servers use when they do not know (or hide) what a file is; a PDF served as one is found by its magic bytes.
 */
const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/download',
  'application/force-download',
  'application/x-download',
]);

const MAGIC = Buffer.from('%PDF-');
/** How far into the body the PDF header may start: the spec allows junk before it and readers accept 1 KiB of it. */
const MAGIC_WINDOW = 1024;

export function hasPdfMagic(body: Buffer): boolean {
  return body.subarray(0, MAGIC_WINDOW).includes(MAGIC);
}

/**
 * A PDF by its declared type; or by its `%PDF-` header, when the body starts with it and is not declared HTML, or
 * when it sits within the first KiB of a body declared generically (octet-stream, none) or under a `.pdf` URL.
 */
export function isPdfBody(contentType: string | undefined, body: Buffer, url: URL): boolean {
  const mime = mimeOf(contentType);
  if (PDF_TYPES.has(mime)) return true;
  if (isHtmlType(mime)) return false;
  if (body.subarray(0, MAGIC.length).equals(MAGIC)) return true;
  return hasPdfMagic(body) && (GENERIC_TYPES.has(mime) || url.pathname.toLowerCase().endsWith('.pdf'));
}

export function isHtmlType(contentType: string | undefined): boolean {
  const mime = mimeOf(contentType);
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** Types that are text of some kind (plain, Markdown, CSV, JSON, XML): the html fetcher turns them into content. */
export function isTextual(mime: string): boolean {
  return (
    mime.startsWith('text/') ||
    mime.endsWith('+json') ||
    mime.endsWith('/json') ||
    mime.endsWith('+xml') ||
    mime.endsWith('/xml')
  );
}

/** Types no fetcher turns into text (images, audio, video, archives, fonts): refused before any body is read. */
export function isUnreadableType(contentType: string | undefined): boolean {
  const mime = mimeOf(contentType);
  return mime !== '' && !GENERIC_TYPES.has(mime) && !PDF_TYPES.has(mime) && !isHtmlType(mime) && !isTextual(mime);
}
