// The order of POST /map's links for a `search`: BM25 (Robertson and Zaragoza's Okapi weighting, the ranking of
// Lucene and most search engines) over the words of each link's path and title, the links themselves the corpus.
// A link's words are few, so no index: one pass counts the words' document frequencies, a second scores.

/** BM25's usual constants: k1 saturates a word's repetitions, b weighs a long link's words down. */
const K1 = 1.2;
const B = 0.75;

/** Lower-cased words (letters and digits of any script), each with a plural `s` (or `ies`) folded away. */
function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .map((word) => {
      if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
      if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
      return word;
    });
}

/** The words of a link: its path's segments (decoded) and its title. The host is the same for every link. */
function linkWords(link: { url: string; title?: string }): string[] {
  let path: string;
  try {
    path = new URL(link.url).pathname;
  } catch {
    path = link.url;
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: its words as written
  }
  return wordsOf(`${path} ${link.title ?? ''}`);
}

/**
 * `links` ordered by relevance to `query`, best first; equal scores keep their order (the sort is stable), and links
 * that share no word with the query come last, in their order. A query without words leaves the order as it is.
 */
export function rankLinks<T extends { url: string; title?: string }>(links: T[], query: string): T[] {
  const terms = [...new Set(wordsOf(query))];
  if (terms.length === 0 || links.length === 0) return [...links];
  const documents = links.map((link) => {
    const counts = new Map<string, number>();
    const words = linkWords(link);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { link, counts, length: words.length };
  });
  const averageLength = documents.reduce((sum, document) => sum + document.length, 0) / documents.length || 1;
  // Lucene's idf, which stays positive for a word most links share.
  const idf = new Map(
    terms.map((term) => {
      const containing = documents.filter((document) => document.counts.has(term)).length;
      return [term, Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5))];
    }),
  );
  const scored = documents.map(({ link, counts, length }) => {
    let score = 0;
    for (const term of terms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency === 0) continue;
      score +=
        ((idf.get(term) ?? 0) * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));
    }
    return { link, score };
  });
  return scored.sort((a, b) => b.score - a.score).map(({ link }) => link);
}
