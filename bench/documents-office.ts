// Office files round-tripped for `npm run bench:documents`: DOCX, PPTX and XLSX written by writer libraries (docx,
// pptxgenjs, exceljs) from seeded random content, read back through the document extractor, and every heading, table
// cell, slide title, bullet, sheet name and cell looked for in the Markdown in order.
import { loadConfig } from '../src/config.js';
import { convertDocument } from '../src/fetchers/documents/index.js';
import { documentOptions } from '../src/fetchers/index.js';
import { createRng, type Rng } from '../test/helpers/fuzz.js';
import { makeDocx, type DocBlock } from '../test/helpers/documents/docx.js';
import { makePptx, type SlideContent } from '../test/helpers/documents/pptx.js';
import { makeXlsx, type SheetContent } from '../test/helpers/documents/sheets.js';

const WORDS = (
  'tomato basil pepper balcony water soil sun shade pot seed leaf root harvest week month litre compost ' +
  'pruning stake trellis frost summer autumn spring mulch drainage feed bloom fruit green ripe sweet'
).split(' ');

export interface RoundTrip {
  format: 'docx' | 'pptx' | 'xlsx';
  files: number;
  /** Headings, cells, titles (and bullets) that must come back. */
  expected: number;
  /** Of them, found in the Markdown in order. */
  inOrder: number;
  cpuMsPerFile: number;
}

const phrase = (rng: Rng, words: number) => Array.from({ length: words }, () => rng.pick(WORDS)).join(' ');
const capitalised = (text: string) => text[0]!.toUpperCase() + text.slice(1);
/** Unique across a file: a number keeps equal phrases apart, so order is checked on distinct strings. */
const labelled = (rng: Rng, words: number, n: number) => `${capitalised(phrase(rng, words))} ${n}`;

function table(rng: Rng, rows: number, columns: number, next: () => number): string[][] {
  return Array.from({ length: rows }, () => Array.from({ length: columns }, () => labelled(rng, 2, next())));
}

function docContent(rng: Rng): { blocks: DocBlock[]; expected: string[] } {
  let n = 0;
  const next = () => ++n;
  const blocks: DocBlock[] = [];
  const expected: string[] = [];
  for (let section = 0; section < 6; section++) {
    const heading = labelled(rng, 3, next());
    blocks.push({ heading, level: section === 0 ? 1 : 2 }, { paragraph: `${capitalised(phrase(rng, 40))}.` });
    expected.push(heading);
    if (rng.chance(0.5)) {
      const rows = table(rng, 2 + rng.int(6), 2 + rng.int(4), next);
      blocks.push({ table: rows });
      expected.push(...rows.flat());
    }
  }
  return { blocks, expected };
}

function deckContent(rng: Rng): { slides: SlideContent[]; expected: string[] } {
  let n = 0;
  const next = () => ++n;
  const slides: SlideContent[] = [];
  const expected: string[] = [];
  for (let i = 0; i < 12; i++) {
    const title = labelled(rng, 3, next());
    const bullets = Array.from({ length: 2 + rng.int(4) }, () => ({ text: labelled(rng, 5, next()) }));
    const slide: SlideContent = { title, bullets, notes: `${capitalised(phrase(rng, 12))}.` };
    expected.push(title, ...bullets.map((b) => b.text));
    if (rng.chance(0.3)) {
      slide.table = table(rng, 3, 3, next);
      expected.push(...slide.table.flat());
    }
    slides.push(slide);
  }
  return { slides, expected };
}

function workbookContent(rng: Rng): { sheets: SheetContent[]; expected: string[] } {
  let n = 0;
  const next = () => ++n;
  const sheets: SheetContent[] = [];
  const expected: string[] = [];
  for (let i = 0; i < 3; i++) {
    const name = `Sheet ${next()} ${rng.pick(WORDS)}`;
    const rows = table(rng, 10 + rng.int(40), 3 + rng.int(4), next);
    sheets.push({ name, rows });
    expected.push(name, ...rows.flat());
  }
  return { sheets, expected };
}

/** How many of `expected` appear in `markdown` one after another, each after the one before. */
function foundInOrder(markdown: string, expected: readonly string[]): number {
  let at = 0;
  let found = 0;
  for (const text of expected) {
    const index = markdown.indexOf(text, at);
    if (index < 0) continue;
    found++;
    at = index + text.length;
  }
  return found;
}

async function read(body: Buffer, type: string): Promise<string> {
  const options = documentOptions(loadConfig({}));
  const response = {
    url: new URL('https://bench.example/file'),
    status: 200,
    headers: { 'content-type': type },
    body,
    bodyTruncated: false,
    redirects: 0,
    bytes: body.length,
    wireBytes: body.length,
  };
  const outcome = await convertDocument(response, options);
  if (!outcome.ok) throw new Error(`${type}: ${outcome.failure.detail}`);
  return outcome.page.markdown;
}

async function measure(
  format: RoundTrip['format'],
  files: { body: Buffer; expected: string[] }[],
  type: string,
): Promise<RoundTrip> {
  let expected = 0;
  let inOrder = 0;
  const started = process.cpuUsage();
  for (const file of files) {
    const markdown = await read(file.body, type);
    expected += file.expected.length;
    inOrder += foundInOrder(markdown, file.expected);
  }
  const cpu = process.cpuUsage(started);
  return {
    format,
    files: files.length,
    expected,
    inOrder,
    cpuMsPerFile: (cpu.user + cpu.system) / 1000 / files.length,
  };
}

export async function officeRoundTrips(count = 30, seed = 35): Promise<RoundTrip[]> {
  const rng = createRng(seed);
  const docs = [];
  const decks = [];
  const books = [];
  for (let i = 0; i < count; i++) {
    const doc = docContent(rng);
    docs.push({
      body: await makeDocx({ title: `Report ${i}`, author: 'Bench', blocks: doc.blocks }),
      expected: doc.expected,
    });
    const deck = deckContent(rng);
    decks.push({
      body: await makePptx({ title: `Deck ${i}`, author: 'Bench', subject: 'bench', slides: deck.slides }),
      expected: deck.expected,
    });
    const workbook = workbookContent(rng);
    books.push({ body: await makeXlsx({ title: `Book ${i}`, sheets: workbook.sheets }), expected: workbook.expected });
  }
  return [
    await measure('docx', docs, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    await measure('pptx', decks, 'application/vnd.openxmlformats-officedocument.presentationml.presentation'),
    await measure('xlsx', books, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  ];
}
