// A request answered from a fresh enough cached copy, read from its start: the whole answer made for this copy before
// (answer-memo.ts) when there is one, within the same second of the copy's age; else it is rendered, and kept if whole.
import type { CacheHit } from '../cache/types.js';
import type { FetchResult, Format } from '../contract/fetch.js';
import type { MarkdownStyle } from '../extract/formats/link-style.js';
import type { AnswerMemo } from './answer-memo.js';
import type { ViewMemos } from './content-view.js';
import { ageSeconds, renderResult, type RenderOptions, type RequestShape, type StoredPage } from './render.js';

/**
 * What a kept whole answer looks like besides the copy it came from: every render option but the budgets and start
 * (a kept answer is whole) and the key hash (the copy's). A string, as it is looked up per request.
 */
function variantOf(requestUrl: string, format: Format, style: MarkdownStyle): string {
  return `${format} ${style.links} ${style.images} ${requestUrl}`;
}
// A render option or style field added later must go into variantOf, or kept answers would ignore it: until it does,
// these do not compile.
const _renderOptionsInVariant: Record<
  Exclude<
    keyof RenderOptions,
    // A query shapes only trimmed answers (never kept) and a cursor's skip only cursor reads (never kept).
    | 'requestUrl'
    | 'format'
    | 'style'
    | 'keyHash'
    | 'maxTokens'
    | 'maxChars'
    | 'offset'
    | 'hit'
    | 'now'
    | 'query'
    | 'skip'
  >,
  never
> = {};
const _styleFieldsInVariant: Record<Exclude<keyof MarkdownStyle, 'links' | 'images'>, never> = {};

export function answerFromCopy(
  deps: { answers: AnswerMemo; views: ViewMemos },
  copy: CacheHit<StoredPage>,
  shape: RequestShape,
): FetchResult {
  const variant = variantOf(shape.requestUrl, shape.format, shape.style);
  const kept = deps.answers.get(copy, variant, shape.maxTokens, ageSeconds(copy, shape.now), shape.maxChars);
  if (kept !== undefined) return kept;
  return deps.answers.keep(copy, variant, renderResult(copy, { ...shape, offset: 0, hit: true }, deps.views));
}
