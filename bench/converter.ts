// `npm run bench:converter`: the HTML → Markdown converter we ship (@mdream/js, pure JavaScript) against mdream's
// native Rust build (the converter before issue 16), on every page of both labelled corpora (181 Scrapinghub, 1,497
// WCXB dev): identical output or not, and speed as a ratio, the two called in turn on each page.
// The native build is not a dependency (it cannot be locked for every platform): `npm install --no-save mdream@1.7.2`
// first, on Linux x64.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { htmlToMarkdown } from '@mdream/js';

const CORPORA = ['extraction/scrapinghub', 'wcxb/dev'];
const ROUNDS = 3;
type Convert = (html: string) => string;

async function loadBaseline(): Promise<Convert> {
  const specifier = 'mdream'; // a variable, so type checking does not need the package installed
  try {
    const native = (await import(specifier)) as { htmlToMarkdown: Convert };
    return (html) => native.htmlToMarkdown(html);
  } catch {
    process.stderr.write('bench:converter: run `npm install --no-save mdream@1.7.2` first (the native baseline)\n');
    process.exit(2);
  }
}

function loadPages(): { id: string; html: string }[] {
  return CORPORA.flatMap((corpus) => {
    const dir = new URL(`../../shared/bench/${corpus}/`, import.meta.url);
    const ids = Object.keys(JSON.parse(readFileSync(new URL('ground-truth.json', dir), 'utf8')) as object).sort();
    return ids.map((id) => ({
      id: `${corpus}/${id}`,
      html: gunzipSync(readFileSync(new URL(`html/${id}.html.gz`, dir))).toString('utf8'),
    }));
  });
}

function time(convert: Convert, html: string): { ms: number; markdown: string } {
  const started = performance.now();
  const markdown = convert(html);
  return { ms: performance.now() - started, markdown };
}

const baseline = await loadBaseline();
const pages = loadPages();
const candidate: Convert = (html) => htmlToMarkdown(html);
// Warm-up: JIT, native loading.
for (const page of pages.slice(0, 20)) {
  baseline(page.html);
  candidate(page.html);
}

let baselineMs = 0;
let candidateMs = 0;
const differing: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const page of pages) {
    const native = time(baseline, page.html);
    const js = time(candidate, page.html);
    baselineMs += native.ms;
    candidateMs += js.ms;
    if (round === 0 && native.markdown !== js.markdown) differing.push(page.id);
  }
}
const perSecond = (ms: number) => Math.round((pages.length * ROUNDS * 1000) / ms);
console.log(
  JSON.stringify(
    {
      pages: pages.length,
      rounds: ROUNDS,
      identical: pages.length - differing.length,
      differing_first: differing.slice(0, 10),
      native_pages_per_second: perSecond(baselineMs),
      js_pages_per_second: perSecond(candidateMs),
      js_time_ratio: Number((candidateMs / baselineMs).toFixed(2)),
    },
    null,
    2,
  ),
);
