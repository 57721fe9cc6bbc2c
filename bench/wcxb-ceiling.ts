// How much of WCXB's `with` figure any extractor can reach. A must-have snippet counts only when the answer holds it
// as a case-insensitive substring, so its quote marks must match. The truth keeps the page's curly quotes on some
// pages and turns them straight on others, so one quote policy for every page cannot find them all. This scores,
// per page as WCXB does, the snippets found anywhere in the page: its whole text as our parser builds it (every
// element kept, noscript and streamed segments shown) and its source with the tags cut out (scripts' JSON included),
// whitespace ignored; with the page's quote marks as they are, all made straight, and the better of the two for each
// page (an oracle). Beside them, Fetchdown's own text answers (extractHtml), whitespace ignored and as WCXB scores.
//   tsx bench/wcxb-ceiling.ts
import { extractHtml } from '../src/extract/index.js';
import { normaliseHtml, parseDocument } from '../src/extract/parse/parse.js';
import { PAGE_TYPES, loadWcxbPage, loadWcxbTruth, wcxbIds } from './wcxb-pages.js';

/** Lower-cased with every whitespace removed: blind to how blocks and lines are separated. */
const flat = (text: string) => text.toLowerCase().replace(/\s+/g, '');
const straight = (text: string) => text.replace(/[‘’]/g, "'").replace(/[“”]/g, '"');

/** Every text the page holds, flattened: as parsed, then the source without its tags. */
function pageText(html: string): string {
  const parsed = parseDocument(normaliseHtml(html)).documentElement?.textContent ?? '';
  return `${flat(parsed)}\n${flat(html.replace(/<[^>]*>/g, ''))}`;
}

const truth = loadWcxbTruth();
const policies = [
  'page, quotes as they are',
  'page, quotes straight',
  'page, better of the two',
  'Fetchdown, whitespace ignored',
  'Fetchdown, as WCXB scores',
] as const;
const shares = new Map<string, number[][]>([['overall', policies.map(() => [])]]);
for (const type of PAGE_TYPES)
  shares.set(
    type,
    policies.map(() => []),
  );
for (const id of wcxbIds(truth)) {
  const { with: snippets = [], page_type: type } = truth[id]!;
  let found = policies.map(() => 1);
  if (snippets.length > 0) {
    const page = loadWcxbPage(id, truth);
    const [text, answer] = [pageText(page.html), extractHtml(page.html, page.url).text];
    const share = (has: (snippet: string) => boolean) => snippets.filter(has).length / snippets.length;
    const [asIs, straightened] = [share((s) => text.includes(flat(s))), share((s) => straight(text).includes(flat(s)))];
    const ours = [
      share((s) => flat(answer).includes(flat(s))),
      share((s) => answer.toLowerCase().includes(s.toLowerCase())),
    ];
    found = [asIs, straightened, Math.max(asIs, straightened), ...ours];
  }
  for (const key of ['overall', type]) found.forEach((share, i) => shares.get(key)![i]!.push(share));
}
const mean = (values: number[]) => (100 * values.reduce((a, b) => a + b, 0)) / values.length;
console.log(`| page type | pages | ${policies.join(' | ')} |\n|---|---|${policies.map(() => '---|').join('')}`);
for (const [key, columns] of shares)
  console.log(`| ${key} | ${columns[0]!.length} | ${columns.map((c) => `${mean(c).toFixed(1)} %`).join(' | ')} |`);
