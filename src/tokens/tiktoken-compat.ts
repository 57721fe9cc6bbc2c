// The few places where gpt-tokenizer's o200k_base disagrees with tiktoken (the reference), and a tiktoken-faithful
// count for the pieces of text that hit one of them. Everything else is left to gpt-tokenizer, which is faster.
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';

// Letters, marks and digits new in Unicode 17: V8 knows them, tiktoken's Rust regex tables (Unicode 16) treat them as
// unassigned, so they split text differently. Found by tokenizing every code point in several contexts with both.
const UNICODE_17 = String.raw`\u088F\u0C5C\u0CDC\u1ACF-\u1ADD\u1AE0-\u1AEB\uA7CE\uA7CF\uA7D2\uA7D4\uA7F1\u{10940}-\u{10959}\u{10EC5}-\u{10EC7}\u{10EFA}\u{10EFB}\u{11B60}-\u{11B67}\u{11DB0}-\u{11DDB}\u{11DE0}-\u{11DE9}\u{16EA0}-\u{16EB8}\u{16EBB}-\u{16ED3}\u{16FF2}-\u{16FF6}\u{187F8}-\u{187FF}\u{18D09}-\u{18D1E}\u{18D80}-\u{18DF2}\u{1E6C0}-\u{1E6DE}\u{1E6E0}-\u{1E6F5}\u{1E6FE}\u{1E6FF}\u{2B73A}-\u{2B73F}\u{2CEA2}-\u{2CEAD}\u{323B0}-\u{33479}`;

// Rust's \s is Unicode White_Space: unlike JavaScript's it includes U+0085 and excludes U+FEFF.
const SPACE = String.raw`\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;
const LETTER = String.raw`[\p{L}--[${UNICODE_17}]]`;
const DIGIT = String.raw`[\p{N}--[${UNICODE_17}]]`;
const UPPER = String.raw`[[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]--[${UNICODE_17}]]`;
const LOWER = String.raw`[[\p{Ll}\p{Lm}\p{Lo}\p{M}]--[${UNICODE_17}]]`;
const PREFIX = String.raw`[^\r\n${LETTER}${DIGIT}]`;
// tiktoken writes (?i:'s|'t|…): case-insensitive in Rust also lets 's match 'ſ (U+017F), which gpt-tokenizer's [sS]
// misses.
const CONTRACTION = String.raw`(?:'(?:[sSſtTmMdD]|[rR][eE]|[vV][eE]|[lL][lL]))?`;

/** tiktoken's o200k_base pre-tokenizer, written for JavaScript's regex engine (v flag for the class subtraction). */
// Character classes here copy tiktoken's, combining marks and all: that is what keeps the counts equal.
/* eslint-disable no-misleading-character-class */
const PIECES = new RegExp(
  [
    String.raw`${PREFIX}?${UPPER}*${LOWER}+${CONTRACTION}`,
    String.raw`${PREFIX}?${UPPER}+${LOWER}*${CONTRACTION}`,
    String.raw`${DIGIT}{1,3}`,
    String.raw` ?[^${SPACE}${LETTER}${DIGIT}]+[\r\n\/]*`,
    String.raw`[${SPACE}]*[\r\n]+`,
    String.raw`[${SPACE}]+(?![^${SPACE}])`,
    String.raw`[${SPACE}]+`,
  ].join('|'),
  'gv',
);
/* eslint-enable no-misleading-character-class */

/** Text containing none of these is counted the same by gpt-tokenizer and tiktoken. */
// eslint-disable-next-line no-misleading-character-class -- the code points are listed one by one on purpose
export const DIVERGENT = new RegExp(String.raw`[\uFEFF\u0085\u017F${UNICODE_17}]`, 'v');

/**
 * Counts `text` as tiktoken does: splits it with tiktoken's pre-tokenizer, hands runs of unaffected pieces to
 * `countPlain` (gpt-tokenizer) and byte-pair encodes the affected pieces here.
 */
export function countDivergent(text: string, countPlain: (text: string) => number): number {
  let total = 0;
  let runStart = 0;
  // The space pieces that end the current run. They are counted one by one: together and alone, "  " would be one
  // piece, where tiktoken's lookahead (?!\S) saw the character after the run and split it in two.
  let spaces: string[] = [];
  let spacesStart = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    if (!DIVERGENT.test(piece)) {
      if (!/^\s+$/.test(piece)) spaces = [];
      else if (spaces.push(piece) === 1) spacesStart = match.index;
      continue;
    }
    const runEnd = spaces.length > 0 ? spacesStart : match.index;
    if (runEnd > runStart) total += countPlain(text.slice(runStart, runEnd));
    for (const space of spaces) total += countPlain(space);
    total += countPiece(piece);
    runStart = match.index + piece.length;
    spaces = [];
  }
  if (runStart < text.length) total += countPlain(text.slice(runStart));
  return total;
}

let rankOfBytes: Map<string, number> | undefined;

/** Ranks keyed by their bytes as a latin1 string; built on first use, since most processes never need it. */
function rankOf(bytes: string): number {
  if (!rankOfBytes) {
    rankOfBytes = new Map();
    // gpt-tokenizer stores a token as text when its bytes are valid UTF-8 and as a byte list otherwise.
    ranks.forEach((token, rank) => {
      const key =
        typeof token === 'string' ? Buffer.from(token, 'utf8').toString('latin1') : String.fromCharCode(...token);
      rankOfBytes!.set(key, rank);
    });
  }
  return rankOfBytes.get(bytes) ?? Infinity;
}

/** tiktoken's byte_pair_merge: repeatedly merge the adjacent parts whose union has the lowest rank. */
function countPiece(piece: string): number {
  const bytes = Buffer.from(piece, 'utf8').toString('latin1'); // lone surrogates become U+FFFD, as in tiktoken
  if (rankOf(bytes) !== Infinity) return 1;
  const starts: number[] = [];
  const pairRanks: number[] = [];
  for (let i = 0; i <= bytes.length; i++) {
    starts.push(i);
    pairRanks.push(i + 2 <= bytes.length ? rankOf(bytes.slice(i, i + 2)) : Infinity);
  }
  // The rank of merging part i with part i+1, as tiktoken computes it before removing the boundary between them.
  const rankAt = (i: number) => (i + 3 < starts.length ? rankOf(bytes.slice(starts[i], starts[i + 3])) : Infinity);
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < pairRanks.length - 1; i++) {
      if (pairRanks[i]! < bestRank) {
        bestRank = pairRanks[i]!;
        best = i;
      }
    }
    if (best < 0) return starts.length - 1;
    if (best > 0) pairRanks[best - 1] = rankAt(best - 1);
    pairRanks[best] = rankAt(best);
    starts.splice(best + 1, 1);
    pairRanks.splice(best + 1, 1);
  }
}
