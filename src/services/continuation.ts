// A request with a cursor: the next part of the cached copy the cursor points into (the page's, or a selection's),
// read as the first part was (format, style, and after a query's part without the ranges it showed). Never fetched
// again: a cursor into a copy that is gone is a 422, and a cache that cannot be reached a 503.
import type { CacheHit } from '../cache/types.js';
import type { FetchResult } from '../contract/fetch.js';
import { viewContent, type ViewMemos } from './content-view.js';
import { cursorExpired, cursorMalformed, readCursor } from './cursor.js';
import { renderResult, type RequestShape, type StoredPage } from './render.js';

/** `readCopy`: the copy the request's cursors point into, needing the cache (page-cache.ts). */
export async function continueReading(
  views: ViewMemos,
  cursorText: string,
  shape: RequestShape,
  readCopy: () => Promise<CacheHit<StoredPage> | null>,
): Promise<FetchResult> {
  const cursor = readCursor(cursorText, shape.keyHash, shape.format, shape.style);
  const entry = await readCopy();
  if (!entry || entry.storedAt !== cursor.storedAt) throw cursorExpired();
  const view = viewContent(entry.value, shape.format, shape.style, views);
  const skip = cursor.skip;
  if ((skip && skip.at(-1)![1] > view.body.length) || cursor.offset > (skip ? view.rest(skip) : view).body.length) {
    throw cursorMalformed();
  }
  return renderResult(entry, { ...shape, offset: cursor.offset, hit: true, skip }, views);
}
