// What the `links` and `images` options save: o200k tokens of our Markdown for the 181 pages of
// shared/bench/extraction in each style, against inline links with images kept (the default), and what restyling costs.
// Run: npx tsx bench/link-style.ts   (or npm run bench:links)
import { extractHtml } from '../src/extract/index.js';
import { restyleMarkdown, type MarkdownStyle } from '../src/extract/formats/link-style.js';
import { countTokens } from '../src/tokens/count.js';
import { loadBenchmarkPages } from './benchmark-pages.js';

const STYLES: MarkdownStyle[] = [
  { links: 'inline', images: 'keep' },
  { links: 'reference', images: 'keep' },
  { links: 'none', images: 'keep' },
  { links: 'inline', images: 'none' },
  { links: 'reference', images: 'none' },
  { links: 'none', images: 'none' },
];

const pages = loadBenchmarkPages().pages.map((page) => extractHtml(page.html, page.url).markdown);
const rows = STYLES.map((style) => {
  let tokens = 0;
  let ms = 0;
  let changed = 0;
  for (const markdown of pages) {
    const started = performance.now();
    const styled = restyleMarkdown(markdown, style);
    ms += performance.now() - started;
    tokens += countTokens(styled);
    if (styled !== markdown) changed++;
  }
  return { style, tokens, ms, changed };
});

const base = rows[0]!.tokens;
const percent = (n: number) => `${n >= 0 ? '' : '−'}${Math.abs(n).toFixed(1)} %`;
console.log(`${pages.length} pages of shared/bench/extraction, our Markdown (o200k_base tokens)\n`);
console.log('| links | images | tokens | saving vs inline/keep | pages changed | restyle ms/page |');
console.log('|---|---|---:|---:|---:|---:|');
for (const row of rows) {
  const saving = ((base - row.tokens) / base) * 100;
  console.log(
    `| ${row.style.links} | ${row.style.images} | ${row.tokens} | ${percent(saving)} | ` +
      `${row.changed} | ${(row.ms / pages.length).toFixed(2)} |`,
  );
}
