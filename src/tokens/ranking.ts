// Lexical relevance of a page's blocks to a query: BM25 over the blocks, each block's heading path counting as part of
// it (a heading speaks for its whole section). Small on purpose: no stemmer library, a few English stop words.

/**
 * Standard BM25 constants. A term in the heading path counts HEADING_WEIGHT times: less than once, as a heading speaks
 * for every passage of its section (at 2, a query made of a page's title picked 21 % of WCXB's must-have snippets in
 * 500 tokens, at 0.5 24 %, at 0 29 %; at 0 headings would not count at all).
 */
const K1 = 1.2;
const B = 0.75;
const HEADING_WEIGHT = 0.5;

const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can do does for from has have how i if in into is it its of on or our so that the ' +
    'their then there these this to was we were what when where which who why will with you your'
  ).split(' '),
);

/** Lower-cased words of letters and digits, stop words dropped, a plural `s` taken off long words. */
export function queryTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    let word = match[0];
    if (STOP_WORDS.has(word)) continue;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) word = word.slice(0, -1);
    terms.push(word);
  }
  return terms;
}

export interface RankedUnit {
  /** The unit's own text (a paragraph, a list item, a table row). */
  text: string;
  /** The titles of the headings it sits under, outermost first. */
  headings: readonly string[];
}

function counts(terms: readonly string[], weight: number, into = new Map<string, number>()): Map<string, number> {
  for (const term of terms) into.set(term, (into.get(term) ?? 0) + weight);
  return into;
}

/**
 * BM25 score of each unit for `query` (0 when it shares no term with it), as the part each query term contributes.
 * Document frequency and length are taken over the units; a term in the heading path adds HEADING_WEIGHT to the
 * unit's term frequency but not to its length, so a short paragraph under a matching heading is not punished for the
 * heading.
 */
export function termScores(units: readonly RankedUnit[], query: string): Map<string, number>[] {
  const wanted = [...new Set(queryTerms(query))];
  if (wanted.length === 0 || units.length === 0) return units.map(() => new Map<string, number>());
  const headingTerms = new Map<string, Map<string, number>>();
  const docs = units.map((unit) => {
    const own = queryTerms(unit.text);
    const key = unit.headings.join('\u0000');
    let fromHeadings = headingTerms.get(key);
    if (!fromHeadings) headingTerms.set(key, (fromHeadings = counts(unit.headings.flatMap(queryTerms), 1)));
    return { tf: counts(own, 1), headings: fromHeadings, length: own.length };
  });
  const averageLength = Math.max(1, docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length);
  const idf = new Map<string, number>();
  for (const term of wanted) {
    const df = docs.filter((doc) => doc.tf.has(term) || doc.headings.has(term)).length;
    idf.set(term, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)));
  }
  return docs.map((doc) => {
    const parts = new Map<string, number>();
    const norm = K1 * (1 - B + (B * doc.length) / averageLength);
    for (const term of wanted) {
      const tf = (doc.tf.get(term) ?? 0) + HEADING_WEIGHT * (doc.headings.get(term) ?? 0);
      if (tf > 0) parts.set(term, idf.get(term)! * ((tf * (K1 + 1)) / (tf + norm)));
    }
    return parts;
  });
}

/** The BM25 score of each unit for `query`: the sum of its terms' parts (termScores). */
export function scoreUnits(units: readonly RankedUnit[], query: string): number[] {
  return termScores(units, query).map((parts) => [...parts.values()].reduce((total, part) => total + part, 0));
}
