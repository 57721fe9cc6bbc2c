// What a Content-Type header alone says, before any body is read (the estimate's refusal); what a body is, once
// read, is documents/sniff.ts's to decide.
import { mimeOf } from '../util/media-type.js';
import { declaredType, GENERIC_TYPES } from './documents/sniff.js';

export function isHtmlType(contentType: string | undefined): boolean {
  const mime = mimeOf(contentType);
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** Types that are text of some kind (plain, Markdown, CSV, JSON, XML). */
function isTextual(mime: string): boolean {
  return (
    mime.startsWith('text/') ||
    mime.endsWith('+json') ||
    mime.endsWith('/json') ||
    mime.endsWith('+xml') ||
    mime.endsWith('/xml')
  );
}

/** Images OCR reads (documents/image.ts). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/** Types no fetcher turns into text (audio, video, archives, fonts, other images): refused before any body is read. */
export function isUnreadableType(contentType: string | undefined): boolean {
  const mime = mimeOf(contentType);
  return !GENERIC_TYPES.has(mime) && declaredType(mime) === null && !isTextual(mime) && !IMAGE_TYPES.has(mime);
}
