// A caller's include/exclude patterns as regular expressions that cannot stall a crawl. V8's engine backtracks, and a
// pattern runs against paths the crawled site writes, so a pattern whose matching can explode is refused up front
// (the API answers 422), judged by its shape rather than by a timer (a vm timeout costs 250 µs a test, and RE2 is not
// a dependency):
// - a repeated group holding a repetition, an optional element or an alternation, `(a+)+`, `(a|ab)*`: exponential;
// - backreferences, `(a)\1`: they make matching NP-hard, and a path filter has no use for them;
// - a pattern whose bound on backtracking steps is above MAX_STEPS. Each repetition (and an unanchored start, tried at
//   every position) can multiply the steps by the path's length, so `a.*b.*c` took 2 s on a 2,048-character path;
//   the scope refuses longer paths as traps. Within the bound, the worst pattern measured took 28 ms (Node 20).
// A `.*` at either end is dropped before counting and compiling: for a test() on a path, which holds no line break,
// `.*blog.*` and `blog` match the same paths, and the shorter one is the fast one.

export const MAX_PATTERN_LENGTH = 300;
/** The longest path plus query a pattern is tested against; the scope refuses longer URLs as traps. */
export const MAX_TESTED_LENGTH = 2048;
/** The bound on one test's backtracking steps: 8 × 2,048², a pattern with one repetition and 3 two-way choices. */
const MAX_STEPS = 2 ** 25;

export type CompiledPatterns = { ok: true; patterns: RegExp[] } | { ok: false; index: number; message: string };

/** `source` without a `.*` (or `.*?`) at its start or end, which cannot change what a test() on a path finds. */
function dropOpenEnds(source: string): string {
  const trimmed = source.replace(/^\^?\.\*\??/, '');
  const end = /(\\*)\.\*\??\$?$/.exec(trimmed);
  // An odd run of backslashes escapes the dot (`\.*` repeats a literal dot).
  return end && (end[1] ?? '').length % 2 === 0 ? trimmed.slice(0, end.index + (end[1] ?? '').length) : trimmed;
}

interface Group {
  branches: number; // 1 + its top-level `|`s
  chooses: boolean; // holds a repetition, an optional element or an alternation
}

/** The quantifier at `source[i]`: its length and its bounds, or null. */
function quantifierAt(source: string, i: number): { length: number; min: number; max: number } | null {
  const char = source[i];
  let bounds: { length: number; min: number; max: number };
  if (char === '*') bounds = { length: 1, min: 0, max: Infinity };
  else if (char === '+') bounds = { length: 1, min: 1, max: Infinity };
  else if (char === '?') bounds = { length: 1, min: 0, max: 1 };
  else if (char === '{') {
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
    if (!braces) return null; // a literal brace
    const min = Number(braces[1]);
    const max = braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]);
    bounds = { length: braces[0].length, min, max };
  } else return null;
  if (source[i + bounds.length] === '?') bounds.length++; // lazy
  return bounds;
}

/**
 * Why `source` (a valid regular expression) could backtrack for too long, or null. The bound on the steps of one
 * test: each repetition (and an unanchored start, tried at every position) can multiply them by the path's length,
 * each optional element by 2 and each alternation by its branches.
 */
function riskOf(source: string): string | null {
  const outer: Group = { branches: 1, chooses: false };
  const stack = [outer];
  let last: Group | null = null; // the group just closed, when it is what a quantifier would apply to
  let repetitions = 0;
  let choices = 1;
  for (let i = 0; i < source.length;) {
    const char = source[i];
    const top = stack.at(-1)!; // the pattern compiled, so its parentheses balance
    const quantifier = quantifierAt(source, i);
    if (quantifier) {
      if (quantifier.max > quantifier.min) {
        if (quantifier.max > 1 && last?.chooses)
          return 'a repeated group holds a repetition, an optional element or an alternation (exponential time)';
        if (quantifier.max > 1) repetitions++;
        else choices *= 2;
        top.chooses = true;
      }
      last = null;
      i += quantifier.length;
      continue;
    }
    last = null;
    if (char === '\\') {
      if (/^[1-9]|^k</.test(source.slice(i + 1))) return 'backreferences are not supported';
      i += 2;
    } else if (char === '[') {
      // A class is one element: skip to its unescaped `]` (`[]` and `[^]` need no special case in JavaScript).
      i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
    } else if (char === '(') {
      stack.push({ branches: 1, chooses: false });
      i += /^\(\?(?:[:=!]|<[=!]|<[^>]*>)/.exec(source.slice(i))?.[0].length ?? 1;
    } else if (char === ')') {
      const closed = stack.pop()!;
      choices *= closed.branches;
      stack.at(-1)!.chooses ||= closed.chooses;
      last = closed;
      i++;
    } else {
      if (char === '|') {
        top.branches++;
        top.chooses = true;
      }
      i++;
    }
  }
  choices *= outer.branches;
  const anchored = source.startsWith('^') && outer.branches === 1;
  const steps = choices * MAX_TESTED_LENGTH ** (repetitions + (anchored ? 0 : 1));
  if (steps > MAX_STEPS) {
    const shape = `${repetitions} repetitions${choices > 1 ? ` and ${choices} alternative paths` : ''}`;
    return `${shape}${anchored ? '' : ' (not anchored with ^)'} could backtrack for too long on a long path`;
  }
  return null;
}

/**
 * Compiles the caller's patterns (Firecrawl's semantics: each is tested against a URL's path plus query), or names
 * the first one that is too long, invalid, or could backtrack for too long, so the API can answer a 422 for it.
 */
export function compilePatterns(patterns: string[]): CompiledPatterns {
  const compiled: RegExp[] = [];
  for (const [index, pattern] of patterns.entries()) {
    if (pattern.length > MAX_PATTERN_LENGTH)
      return { ok: false, index, message: `longer than ${MAX_PATTERN_LENGTH} characters` };
    try {
      new RegExp(pattern);
    } catch (error) {
      return { ok: false, index, message: `not a valid regular expression: ${(error as Error).message}` };
    }
    const source = dropOpenEnds(pattern);
    const risk = riskOf(source);
    if (risk) return { ok: false, index, message: risk };
    compiled.push(new RegExp(source));
  }
  return { ok: true, patterns: compiled };
}
