// Exact o200k_base token counts (what tiktoken, the reference, returns) on top of gpt-tokenizer's fast pure-JS BPE.
import { countTokens as countFast, encode as encodeFast, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countDivergent, DIVERGENT } from './tiktoken-compat.js';

// Special-token strings such as <|endoftext|> inside fetched pages are plain text, as in tiktoken's encode_ordinary.
// gpt-tokenizer would throw on them by default; its option objects cost a little per call, so only pass one when
// needed.
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const mayHoldSpecial = (text: string) => text.includes('<|');

function countPlain(text: string): number {
  return mayHoldSpecial(text) ? countFast(text, AS_TEXT) : countFast(text);
}

function countSegment(text: string): number {
  return DIVERGENT.test(text) ? countDivergent(text, countPlain) : countPlain(text);
}

/**
 * Byte-pair encoding takes quadratic time in the length of one piece (a run of letters, of punctuation or of spaces),
 * in tiktoken as here: a page of 200,000 letters without a space held the event loop for 20 s, 40,000 spaces for 1 s.
 * Longer runs are counted in slices of these lengths: exact wherever no piece is that long (every extracted page of
 * the benchmark), within a token or two per slice of tiktoken where one is, and linear time whatever the page.
 */
export const MAX_LETTER_RUN = 256;
export const MAX_OTHER_RUN = 128;
// Capped at 65,536 (a multiple of both slices) because irregexp keeps one backtrack entry per repetition: an uncapped
// run of 6 million letters overflowed the stack. A longer run is found as several matches, sliced alike.
export const LONG_RUN = /[\p{L}\p{M}]{256,65536}|[^\s\p{L}\p{N}]{128,65536}|\s{128,65536}/gu;

// LONG_RUN's classes per UTF-16 unit, filled on first sight: letters and marks, neither space nor letter nor number,
// space. A surrogate counts in all three, so the scan below never misses a run that the regex would find. A unit's
// classes never change, so one table serves the process (64 KB).
const LETTER = 1;
const OTHER = 2;
const SPACE = 4;
const UNSEEN = 255;
const unitClasses = new Uint8Array(0x10000).fill(UNSEEN);

function classesOf(unit: number): number {
  let classes = unitClasses[unit]!;
  if (classes === UNSEEN) {
    const ch = String.fromCharCode(unit);
    classes =
      unit >= 0xd800 && unit <= 0xdfff
        ? LETTER | OTHER | SPACE
        : (/[\p{L}\p{M}]/u.test(ch) ? LETTER : 0) |
          (/[^\s\p{L}\p{N}]/u.test(ch) ? OTHER : 0) |
          (/\s/.test(ch) ? SPACE : 0);
    unitClasses[unit] = classes;
  }
  return classes;
}

/**
 * Whether `text` may hold a run that LONG_RUN matches, in one pass over its units: on ordinary text the regex itself
 * costs ~20× more (it starts a match at every letter), and this answers no for nearly every page.
 */
function mayHoldLongRun(text: string): boolean {
  let letters = 0;
  let others = 0;
  let spaces = 0;
  for (let i = 0; i < text.length; i++) {
    const classes = classesOf(text.charCodeAt(i));
    letters = classes & LETTER ? letters + 1 : 0;
    others = classes & OTHER ? others + 1 : 0;
    spaces = classes & SPACE ? spaces + 1 : 0;
    if (letters >= MAX_LETTER_RUN || others >= MAX_OTHER_RUN || spaces >= MAX_OTHER_RUN) return true;
  }
  return false;
}

/** `text` cut inside its over-long runs; the whole text as one part when it has none. */
function segments(text: string): string[] {
  if (!mayHoldLongRun(text)) return [text];
  LONG_RUN.lastIndex = 0; // matchAll starts where the shared regex was left
  const parts: string[] = [];
  let start = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    const end = run.index + run[0].length;
    const slice = /[\p{L}\p{M}]/u.test(run[0].charAt(0)) ? MAX_LETTER_RUN : MAX_OTHER_RUN;
    for (let cut = endOnCharacter(text, run.index + slice); cut < end; cut = endOnCharacter(text, cut + slice)) {
      parts.push(text.slice(start, cut));
      start = cut;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

export function countTokens(text: string): number {
  let total = 0;
  for (const part of segments(text)) total += countSegment(part);
  return total;
}

function encodeText(text: string): number[] {
  return segments(text).flatMap((part) => encodeFast(part, AS_TEXT));
}

/** The exact count when it is at most `limit`; otherwise some number above `limit`, found without counting it all. */
export function countTokensUpTo(text: string, limit: number): number {
  if (DIVERGENT.test(text) || segments(text).length > 1) return countTokens(text);
  const within = isWithinTokenLimit(text, limit, mayHoldSpecial(text) ? AS_TEXT : undefined);
  return within === false ? limit + 1 : within;
}

/**
 * Length (UTF-16 units) of a prefix of `text` that ends on a token boundary, never inside a character, and counts at
 * most `budget` tokens: the text of its first `budget` tokens, or of fewer when that text alone encodes to more.
 */
export function fitTokens(text: string, budget: number): number {
  if (budget <= 0) return 0;
  // Encode a window that grows until it holds more than `budget` tokens, rather than a possibly huge whole text.
  let window = Math.min(text.length, budget * 8 + 16);
  let tokens: number[];
  for (;;) {
    window = endOnCharacter(text, window);
    tokens = encodeText(text.slice(0, window));
    if (tokens.length > budget || window >= text.length) break;
    window = Math.min(text.length, window * 2);
  }
  let keep = Math.min(budget, tokens.length);
  for (;;) {
    const end = charsInBytes(text, byteLength(tokens, keep));
    // A prefix can encode differently from the whole (and gpt-tokenizer differs from tiktoken on rare characters),
    // so the exact count decides; back off by the overshoot until it fits.
    const count = countTokens(text.slice(0, end));
    if (count <= budget) return end;
    keep -= Math.max(1, count - budget);
  }
}

/** Moves `end` back by one when it would split a surrogate pair. */
function endOnCharacter(text: string, end: number): number {
  const unit = text.charCodeAt(end - 1);
  return end < text.length && unit >= 0xd800 && unit <= 0xdbff ? end - 1 : end;
}

function byteLength(tokens: number[], count: number): number {
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const token = ranks[tokens[i]!]!;
    bytes += typeof token === 'string' ? Buffer.byteLength(token, 'utf8') : token.length;
  }
  return bytes;
}

/** How many UTF-16 units of `text` fit in its first `bytes` UTF-8 bytes, counting only whole characters. */
function charsInBytes(text: string, bytes: number): number {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i)!;
    // A lone surrogate is encoded as U+FFFD: 3 bytes, one unit.
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (used + size > bytes) break;
    used += size;
    i += size === 4 ? 2 : 1;
  }
  return i;
}
