// Cursors for reading a long page in parts: they point into one cached copy, so part 2 always matches part 1.
import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { DEFAULT_STYLE, IMAGE_STYLES, LINK_STYLES, isDefaultStyle, type MarkdownStyle } from '../extract/styles.js';
import type { Format } from '../contract/fetch.js';

export interface Cursor {
  key: string; // hash of the cache key: a cursor only works for the URL it came from
  storedAt: number; // which cached copy
  offset: number; // where the next part starts in that copy's content, as rendered in this format and style
  format: Format;
  style: MarkdownStyle; // links and images: offsets into a restyled copy only hold for that style
}

const LOC = ['body', 'cursor'];

export function hashKey(cacheKey: string): string {
  return createHash('sha256').update(cacheKey).digest('base64url').slice(0, 16);
}

/** The style is written only when it is not the default, so cursors of plain Markdown read as they always have. */
export function encodeCursor(cursor: Cursor): string {
  const style = isDefaultStyle(cursor.style) ? [] : [cursor.style.links, cursor.style.images];
  return Buffer.from(JSON.stringify([1, cursor.key, cursor.storedAt, cursor.offset, cursor.format, ...style])).toString(
    'base64url',
  );
}

export function decodeCursor(raw: string): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
  if (!Array.isArray(parts) || parts[0] !== 1)
    throw ValidationError.single(
      LOC,
      'Cursor is malformed: pass next_cursor exactly as it was returned',
      'cursor_invalid',
    );
  const [, key, storedAt, offset, format, links = DEFAULT_STYLE.links, images = DEFAULT_STYLE.images] =
    parts as unknown[];
  if (
    typeof key !== 'string' ||
    !Number.isSafeInteger(storedAt) ||
    !Number.isSafeInteger(offset) ||
    (offset as number) < 0 ||
    !['markdown', 'text', 'json'].includes(format as string) ||
    !(LINK_STYLES as readonly unknown[]).includes(links) ||
    !(IMAGE_STYLES as readonly unknown[]).includes(images)
  ) {
    throw ValidationError.single(
      LOC,
      'Cursor is malformed: pass next_cursor exactly as it was returned',
      'cursor_invalid',
    );
  }
  const style = { links, images } as MarkdownStyle;
  return { key, storedAt: storedAt as number, offset: offset as number, format: format as Format, style };
}

export function cursorError(msg: string): ValidationError {
  return ValidationError.single(LOC, msg, 'cursor_invalid');
}
