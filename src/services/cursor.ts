// Cursors for reading a long page in parts: they point into one cached copy, so part 2 always matches part 1.
import { createHash } from 'node:crypto';
import { FieldError } from '../errors.js';
import {
  DEFAULT_STYLE,
  IMAGE_STYLES,
  LINK_STYLES,
  isDefaultStyle,
  type MarkdownStyle,
} from '../extract/formats/styles.js';
import type { Format } from '../contract/fetch.js';

export interface Cursor {
  key: string; // hash of the cache key: a cursor only works for the URL it came from
  storedAt: number; // which cached copy
  offset: number; // where the next part starts in that copy's content, as rendered in this format and style
  format: Format;
  style: MarkdownStyle; // links and images: offsets into a restyled copy only hold for that style
  /** After a query's part: the ranges it showed, which the rest of the page (what `offset` points into) leaves out. */
  skip?: [number, number][];
}

export function hashKey(cacheKey: string): string {
  return createHash('sha256').update(cacheKey).digest('base64url').slice(0, 16);
}

/** The style is written only when it is not the default, so cursors of plain Markdown read as they always have. */
export function encodeCursor(cursor: Cursor): string {
  if (cursor.skip && cursor.skip.length > 0) {
    // Version 2 carries the shown ranges as gaps from one offset to the next, which keeps the numbers short.
    const offsets = cursor.skip.flat();
    const gaps = offsets.map((at, i) => at - (i === 0 ? 0 : offsets[i - 1]!));
    const head = [
      2,
      cursor.key,
      cursor.storedAt,
      cursor.offset,
      cursor.format,
      cursor.style.links,
      cursor.style.images,
    ];
    return Buffer.from(JSON.stringify([...head, ...gaps])).toString('base64url');
  }
  const style = isDefaultStyle(cursor.style) ? [] : [cursor.style.links, cursor.style.images];
  return Buffer.from(JSON.stringify([1, cursor.key, cursor.storedAt, cursor.offset, cursor.format, ...style])).toString(
    'base64url',
  );
}

/** Version 2's ranges back as offsets: ascending, disjoint, non-empty, or null when they are not. */
function readSkip(gaps: unknown[]): [number, number][] | null {
  if (gaps.length === 0 || gaps.length % 2 !== 0) return null;
  const skip: [number, number][] = [];
  let at = 0;
  for (let i = 0; i < gaps.length; i += 2) {
    const [toStart, toEnd] = [gaps[i], gaps[i + 1]];
    if (!Number.isSafeInteger(toStart) || !Number.isSafeInteger(toEnd)) return null;
    if ((toStart as number) < (i === 0 ? 0 : 1) || (toEnd as number) < 1) return null;
    const start = at + (toStart as number);
    at = start + (toEnd as number);
    skip.push([start, at]);
  }
  return skip;
}

export function decodeCursor(raw: string): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
  const version = Array.isArray(parts) ? (parts as unknown[])[0] : null;
  if (version !== 1 && version !== 2) throw cursorMalformed();
  const [, key, storedAt, offset, format, links = DEFAULT_STYLE.links, images = DEFAULT_STYLE.images, ...gaps] =
    parts as unknown[];
  const skip = version === 2 ? readSkip(gaps) : undefined;
  if (
    skip === null ||
    (version === 1 && gaps.length > 0) ||
    typeof key !== 'string' ||
    !Number.isSafeInteger(storedAt) ||
    !Number.isSafeInteger(offset) ||
    (offset as number) < 0 ||
    !['markdown', 'text', 'json'].includes(format as string) ||
    !(LINK_STYLES as readonly unknown[]).includes(links) ||
    !(IMAGE_STYLES as readonly unknown[]).includes(images)
  ) {
    throw cursorMalformed();
  }
  const style = { links, images } as MarkdownStyle;
  const cursor: Cursor = {
    key,
    storedAt: storedAt as number,
    offset: offset as number,
    format: format as Format,
    style,
  };
  if (skip) cursor.skip = skip;
  return cursor;
}

/** A cursor read with the request it came with: a 422 unless it was issued for the same key, format and style. */
export function readCursor(raw: string, keyHash: string, format: Format, style: MarkdownStyle): Cursor {
  const cursor = decodeCursor(raw);
  if (cursor.key !== keyHash)
    throw cursorError(
      'Cursor belongs to another URL, fetcher or selection: pass it with the URL (and fetcher, include and ' +
        'exclude) it was returned for',
    );
  if (cursor.format !== format)
    throw cursorError(`Cursor was issued for format '${cursor.format}': repeat that format`);
  if (cursor.style.links !== style.links || cursor.style.images !== style.images) {
    throw cursorError(
      `Cursor was issued for links '${cursor.style.links}' and images '${cursor.style.images}': repeat those`,
    );
  }
  return cursor;
}

/** A 422 at the request's `cursor`. */
function cursorError(msg: string): FieldError {
  return FieldError.of(['cursor'], msg, 'cursor_invalid');
}

/** A cursor that was changed, or whose offset does not fit the copy it points into. */
export function cursorMalformed(): FieldError {
  return cursorError('Cursor is malformed: pass next_cursor exactly as it was returned');
}

/** A cursor into a copy the cache no longer holds. */
export function cursorExpired(): FieldError {
  return cursorError(
    'Cursor has expired: the cached copy it points into is gone; fetch the URL again without a cursor',
  );
}
