// Whole answers made from a cached copy, kept with that copy: a page asked for again in the same way (URL as written,
// format, links and images) gets the very result made the first time, and the HTTP layer serialises it only once.
// Trimmed and cursor reads are rendered per request; so is every answer when the cache hands out fresh copies (Redis).
import type { FetchResult } from '../contract/fetch.js';

/** Different ways one cached copy is asked for that are kept; more are rendered per request. */
const MAX_VARIANTS = 8;

/** Results handed to more than one request: frozen, so no caller can change what the next one receives. */
const shared = new WeakSet<FetchResult>();

/** Whether `result` is shared between requests (its serialisation can be kept as long as the result is). */
export function isSharedAnswer(result: FetchResult): boolean {
  return shared.has(result);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * `copy` is the cached copy (its identity, so answers go when the cache lets it go); `variant` names everything that
 * shapes the answer except the budget and the copy's age. A kept answer is whole, so it serves any budget of at least
 * its total tokens and its length, while the copy is as many seconds old as the answer says (`cache.age_seconds`);
 * then it is made again, once a second at most.
 */
export function createAnswerMemo() {
  const byCopy = new WeakMap<object, Map<string, FetchResult>>();

  return {
    get(
      copy: object,
      variant: string,
      maxTokens: number | null,
      ageSeconds: number,
      maxChars: number | null = null,
    ): FetchResult | undefined {
      const answer = byCopy.get(copy)?.get(variant);
      if (answer === undefined || (maxTokens !== null && maxTokens < answer.metadata.total_tokens)) return undefined;
      if (maxChars !== null && maxChars < answer.markdown.length) return undefined;
      return answer.cache.age_seconds === ageSeconds ? answer : undefined;
    },
    /** Keeps `answer` if it is whole (not trimmed); returns it, frozen when kept. */
    keep(copy: object, variant: string, answer: FetchResult): FetchResult {
      if (answer.metadata.truncated || answer.next_cursor !== null) return answer;
      let variants = byCopy.get(copy);
      if (variants === undefined) byCopy.set(copy, (variants = new Map<string, FetchResult>()));
      if (variants.size >= MAX_VARIANTS && !variants.has(variant)) return answer;
      variants.set(variant, deepFreeze(answer));
      shared.add(answer);
      return answer;
    },
  };
}

export type AnswerMemo = ReturnType<typeof createAnswerMemo>;
