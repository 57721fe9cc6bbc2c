// A request with include or exclude: made from the page's cached HTML (the page fetched when there is no fresh enough
// copy) on an extraction thread, and cached as a copy of its own tied to the page's copy, so it lives and goes with
// that copy. Its cursors point into the selection's copy.
import { readOrMiss, writeOrSkip } from '../cache/tolerant.js';
import type { Cache, CacheHit } from '../cache/types.js';
import type { FetchResult } from '../contract/fetch.js';
import { checkInteraction, type InteractionInput } from '../contract/interaction.js';
import { FieldError, failureToError, type FieldIssue } from '../errors.js';
import { selectorProblem, type Selection } from '../extract/selection.js';
import type { Conversions } from '../fetchers/conversions.js';
import type { PageOptions } from '../fetchers/types.js';
import type { Clock } from '../util/clock.js';
import type { ViewMemos } from './content-view.js';
import { continueReading } from './continuation.js';
import { hashKey } from './cursor.js';
import type { FetchFresh, Fresh, Upstream } from './fresh-fetch.js';
import { isStale, needCache, parseTargetUrl, readCopy } from './page-cache.js';
import { storedHtmlBytes, sourceKey, type StoredHtml } from './page-source.js';
import { compareCopies, hashContent, renderResult, type RequestShape, type StoredPage } from './render.js';

/**
 * The request's selectors, checked by the engine that will apply them: a 422 naming each one that cannot be used, at
 * its field and index. Sorted, so the same set in any order is one cached selection.
 */
export function checkSelection(request: { include?: readonly string[]; exclude?: readonly string[] }): Selection {
  const issues: FieldIssue[] = [];
  const selection = { include: [...(request.include ?? [])].sort(), exclude: [...(request.exclude ?? [])].sort() };
  for (const field of ['include', 'exclude'] as const) {
    (request[field] ?? []).forEach((selector, index) => {
      const problem = selectorProblem(selector);
      if (problem !== null)
        issues.push({
          field: [field, index],
          msg: `Invalid CSS selector ${JSON.stringify(selector)}: ${problem}`,
          type: 'selector_invalid',
        });
    });
  }
  if (issues.length > 0) throw new FieldError(issues);
  return selection;
}

/** The page fields (wait_for, actions, headers…) checked, their selectors by the engine that checks include's. */
export function checkPageFields(input: InteractionInput): PageOptions | undefined {
  return checkInteraction(input, selectorProblem);
}

export interface SelectionRequest extends Upstream {
  url: string;
  useCache: boolean;
  cursor?: string;
  maxAge?: number;
}

const selectionKey = (base: string, pageStoredAt: number) => `${base}@${pageStoredAt}`;

export async function fetchSelection(
  deps: {
    cache: Cache;
    clock: Clock;
    fetchFresh: FetchFresh;
    /** Where a selection is extracted from a page's HTML: an extraction thread (conversions.ts). */
    select: Conversions['select'];
    views: ViewMemos;
  },
  request: SelectionRequest,
  key: string,
  selection: Selection,
  pageShape: RequestShape,
): Promise<FetchResult> {
  const { cache, clock, fetchFresh, views } = deps;
  const base = `sel:${hashKey(JSON.stringify(selection))}:${key}`;
  const shape = { ...pageShape, keyHash: hashKey(base) };
  const render = (entry: CacheHit<StoredPage>, hit: boolean) =>
    renderResult(entry, { ...shape, offset: 0, hit }, views);
  if (request.cursor !== undefined) {
    // The selection's copy is the one made from the page's current copy.
    const readSelection = async () => {
      const page = await needCache(() => cache.get<StoredPage>(key));
      return page && needCache(() => cache.get<StoredPage>(selectionKey(base, page.storedAt)));
    };
    return continueReading(views, request.cursor, shape, readSelection);
  }
  let page = request.useCache ? await readCopy(cache, key) : null;
  let previousPage: CacheHit<StoredPage> | null | undefined = request.useCache ? null : undefined;
  if (page && isStale(page, request.maxAge, shape.now)) [previousPage, page] = [page, null];
  let fresh: Fresh | null = null;
  if (page) {
    const kept = await readCopy(cache, selectionKey(base, page.storedAt));
    if (kept) return render(kept, true);
    // Copies cached before HTML was kept do not say (undefined): like one whose HTML went first (an LRU evicts them
    // apart), the page is fetched again, once.
    const mayHaveHtml = page.value.keptHtml !== false;
    const source = mayHaveHtml ? await readOrMiss<StoredHtml>(cache, sourceKey(key)) : null;
    if (mayHaveHtml && source?.value.pageStoredAt !== page.storedAt)
      fresh = await fetchFresh(parseTargetUrl(request.url), key, request, page);
    else if (source) fresh = { entry: page, htmlBrotli: storedHtmlBytes(source.value), previous: null };
  } else fresh = await fetchFresh(parseTargetUrl(request.url), key, request, previousPage);
  const copy = fresh?.entry ?? page!;
  const hit = fresh === null || fresh.entry === page;
  const made = await selectFrom(deps.select, copy, fresh?.htmlBrotli, selection);
  const replaced = fresh && fresh.entry !== page ? fresh.previous : null;
  const before = replaced && (await readCopy(cache, selectionKey(base, replaced.storedAt)));
  if (before) Object.assign(made, compareCopies(made, before));
  const ttlSeconds = (copy.expiresAt - clock.now()) / 1000;
  const entry =
    ttlSeconds > 0
      ? await writeOrSkip(cache, selectionKey(base, copy.storedAt), made, ttlSeconds)
      : { value: made, storedAt: clock.now(), expiresAt: copy.expiresAt };
  return render(entry, hit);
}

/** The selection's copy of a page: extracted from its HTML, or the page whole when it has none (PDF, Markdown). */
async function selectFrom(
  select: Conversions['select'],
  page: CacheHit<StoredPage>,
  htmlBrotli: Uint8Array | undefined,
  selection: Selection,
): Promise<StoredPage> {
  const { changed: _c, lastSeenDifferentAt: _l, keptHtml: _k, ...rest } = page.value;
  const fetchedAt = page.value.fetchedAt ?? page.storedAt;
  if (htmlBrotli === undefined)
    return { ...rest, fetchedAt, selection: { applied: false, included: null, excluded: null } };
  const selected = await select(htmlBrotli, page.value.url, selection);
  if (!selected.ok) throw failureToError(selected.failure);
  const { applied, markdown, text, included, excluded, tokens } = selected.content;
  return {
    ...rest,
    markdown,
    text,
    tokens,
    contentHash: hashContent(markdown),
    fetchedAt,
    selection: { applied, included, excluded },
  };
}
