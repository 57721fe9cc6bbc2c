// Quick iteration on WCXB dev: extractHtml called directly on a seeded sample (default 200 pages), scored with
// WCXB's metric, per type; writes per-page F1 to .bench-tmp/wcxb-quick.tsv and predictions to wcxb-quick.json.
//   tsx bench/wcxb-quick.ts [size=200] [seed=15]   (size 0: the whole split, also scored by halves)
import { mkdirSync, writeFileSync } from 'node:fs';
import { extractHtml } from '../src/extract/index.js';
import { PAGE_TYPES, loadWcxbPage, loadWcxbTruth, scoreWcxb, wcxbIds } from './wcxb-pages.js';

const size = Number(process.argv[2] ?? 200) || Infinity;
const seed = Number(process.argv[3] ?? 15);
const truth = loadWcxbTruth();
const ids = wcxbIds(truth, { size, seed });
const predictions: Record<string, string> = {};
let ms = 0;
const empty: string[] = [];
for (const id of ids) {
  const page = loadWcxbPage(id, truth);
  const started = performance.now();
  predictions[id] = extractHtml(page.html, page.url).text;
  ms += performance.now() - started;
  if (predictions[id].trim() === '') empty.push(id);
}
const score = await scoreWcxb(ids, truth, predictions);
const row = (
  name: string,
  s: { n: number; f1: number; precision: number; recall: number; with: number; without: number },
) =>
  `${name.padEnd(14)} ${String(s.n).padStart(5)}  F1 ${s.f1.toFixed(4)}  P ${s.precision.toFixed(4)}  R ${s.recall.toFixed(4)}  with ${(100 * s.with).toFixed(1)}%  without ${(100 * s.without).toFixed(1)}%`;
console.log(row('overall', score.overall));
for (const t of PAGE_TYPES) if (score.byType[t]) console.log(row(t, score.byType[t]));
// Rules must help both halves of the split (even and odd ids), or they fit the pages rather than page types.
for (const parity of [0, 1]) {
  const half = ids.filter((id) => Number(id) % 2 === parity);
  const { overall } = await scoreWcxb(half, truth, predictions);
  console.log(row(parity === 0 ? 'even ids' : 'odd ids', overall));
}
console.log(`empty: ${empty.length} ${empty.join(' ')}; ${(ms / ids.length).toFixed(1)} ms/page`);
mkdirSync('.bench-tmp', { recursive: true });
writeFileSync(
  '.bench-tmp/wcxb-quick.tsv',
  score.perPage
    .map((p) => [p.id, p.page_type, p.f1.toFixed(3), p.precision.toFixed(3), p.recall.toFixed(3)].join('\t'))
    .join('\n') + '\n',
);
writeFileSync('.bench-tmp/wcxb-quick.json', JSON.stringify(predictions));
