// A request with a cursor (and no selection): the next part of the cached copy the cursor points into, read as the
// first part was (format, style, and after a query's part without the ranges it showed). Never fetched again: a
// cursor into a copy that is gone is a 422, and a cache that cannot be reached a 503.
import type { Cache } from '../cache/types.js';
import type { FetchResult } from '../contract/fetch.js';
import { viewContent, type ViewMemos } from './content-view.js';
import { cursorExpired, cursorMalformed, readCursor } from './cursor.js';
import { needCache } from './page-cache.js';
import { renderResult, type RequestShape, type StoredPage } from './render.js';

export async function continueReading(
  deps: { cache: Cache; views: ViewMemos },
  cursorText: string,
  key: string,
  shape: RequestShape,
): Promise<FetchResult> {
  const cursor = readCursor(cursorText, shape.keyHash, shape.format, shape.style);
  const entry = await needCache(() => deps.cache.get<StoredPage>(key));
  if (!entry || entry.storedAt !== cursor.storedAt) throw cursorExpired();
  const view = viewContent(entry.value, shape.format, shape.style, deps.views);
  const skip = cursor.skip;
  if ((skip && skip.at(-1)![1] > view.body.length) || cursor.offset > (skip ? view.rest(skip) : view).body.length) {
    throw cursorMalformed();
  }
  return renderResult(entry, { ...shape, offset: cursor.offset, hit: true, skip }, deps.views);
}
