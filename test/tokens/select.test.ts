// scoreUnits and selectForQuery: BM25 with headings counting for their section; a query's part within the budget, in
// page order under heading paths, with markers where text was left out, and a rest that loses and repeats nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { queryTerms, scoreUnits } from '../../src/tokens/ranking.js';
import { selectForQuery, withoutRanges, MAX_SHOWN_RANGES } from '../../src/tokens/select.js';

const BENCH = join(import.meta.dirname, '../../../shared/bench/extraction/scrapinghub');
const truth = JSON.parse(readFileSync(join(BENCH, 'ground-truth.json'), 'utf8')) as Record<
  string,
  { articleBody: string; title?: string }
>;

const GUIDE = [
  '# Balcony tomatoes',
  'Tomatoes like sun and a deep pot. This guide covers the whole season on a small balcony.',
  ...Array.from(
    { length: 12 },
    (_, i) =>
      `## Chapter ${i + 1}\n\nChapter ${i + 1} talks about soil, pots and stakes in some length, ` +
      `so that the page is long enough to need trimming.\n\n- first point of chapter ${i + 1}\n` +
      `- second point of chapter ${i + 1}`,
  ),
  '## Watering',
  'Water deeply twice a week; in a heat wave, every evening.',
  '### Drip irrigation',
  'A drip line on a timer keeps the soil evenly moist while you are away.',
  '## Harvest',
  'Pick the fruit when fully coloured.',
].join('\n\n');

test('queryTerms: lower case, words of letters and digits, stop words and plural s dropped', () => {
  assert.deepEqual(queryTerms('How often do I water the Tomatoes? Über 3 pots'), [
    'often',
    'water',
    'tomatoe',
    'über',
    '3',
    'pot',
  ]);
});

test('scoreUnits: rarer terms weigh more, repeated ones saturate, headings count for their section', () => {
  const units = [
    { text: 'tomatoes like sun', headings: ['Guide'] },
    { text: 'tomatoes need water, water, water and more water', headings: ['Guide'] },
    { text: 'keep the soil moist', headings: ['Guide', 'Watering'] },
    { text: 'pick when coloured', headings: ['Guide', 'Harvest'] },
  ];
  const [sun, water, underHeading, harvest] = scoreUnits(units, 'watering tomatoes');
  assert.equal(harvest, 0);
  assert.ok(sun! > 0);
  assert.ok(underHeading! > sun!, 'the Watering heading counts for the paragraph under it');
  assert.deepEqual(scoreUnits(units, 'water'), scoreUnits(units, 'water'), 'deterministic');
  assert.ok(water! > 0);
  assert.deepEqual(scoreUnits(units, 'the of and'), [0, 0, 0, 0], 'a query of stop words matches nothing');
});

test('the best-matching blocks in page order, under their heading path, with markers, within the budget', () => {
  const part = selectForQuery(GUIDE, 'drip irrigation timer', 60)!;
  assert.ok(part.tokenCount <= 60, `${part.tokenCount}`);
  assert.equal(part.tokenCount, countTokens(part.content));
  assert.match(part.content, /## Watering\n\n(?:.*\n\n)?### Drip irrigation\n\nA drip line on a timer/);
  assert.match(part.content, /\[… \d+ tokens left out …\]/);
  assert.ok(part.content.startsWith('# Balcony tomatoes'), 'the heading path starts at the top heading');
  // Page order: whatever else was picked comes in the order of the page.
  const positions = part.content
    .split('\n\n')
    .filter((line) => !line.startsWith('[…'))
    .map((line) => GUIDE.indexOf(line));
  assert.ok(positions.every((at) => at >= 0));
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
  );
  // The outline: the sections left out, with what was left out of each; the shown one is not there.
  assert.ok(!part.outline.some((entry) => entry.title.startsWith('Drip irrigation')));
  assert.ok(part.outline.some((entry) => entry.title === 'Chapter 7' && entry.tokens > 20));
  assert.equal(
    part.outline.reduce((sum, entry) => sum + entry.tokens, 0),
    part.leftOut,
  );
});

test('the outline lists the most relevant sections first', () => {
  const part = selectForQuery(GUIDE, 'chapter 7 stakes', 120)!;
  assert.match(
    part.content,
    /## Chapter 7\n\nChapter 7 talks about soil[^\n]*\n\n- first point of chapter 7\n- second point of chapter 7/,
  );
  const titles = part.outline.map((entry) => entry.title);
  assert.ok(!titles.some((title) => title.startsWith('Chapter 7')), 'shown whole');
  // Sections that match (every chapter mentions stakes) come before those that do not, then in page order.
  assert.deepEqual(titles.slice(0, 2), ['Chapter 1', 'Chapter 2']);
  assert.ok(titles.indexOf('Chapter 12') < titles.indexOf('Harvest'));
});

test('a query the head of the page answers as well (or that matches nothing) gets no ranked part', () => {
  assert.equal(selectForQuery(GUIDE, 'zeppelin', 40), null, 'the head cut answers');
  assert.equal(selectForQuery(GUIDE, 'balcony tomatoes', 120), null, 'the head holds every term of it');
  assert.ok(selectForQuery(GUIDE, 'balcony tomatoes drip', 120), 'a term the head lacks');
});

test('consecutive runs of sentences of one paragraph are shown as one paragraph', () => {
  const filler = (i: number) => `Sentence ${i} is about the soil, the pots and the balcony in general terms.`;
  const drip = (i: number) => `Drip line ${i} on a timer keeps the soil of the pots evenly moist while you are away.`;
  const sentences = Array.from({ length: 30 }, (_, i) => (i >= 12 && i < 22 ? drip(i) : filler(i)));
  const page = `# Balcony tomatoes\n\n${sentences.join(' ')}`;
  const part = selectForQuery(page, 'drip line timer moist', 260)!;
  assert.ok(part.tokenCount <= 260, `${part.tokenCount}`);
  const shown = [...part.content.matchAll(/Drip line (\d+)/g)].map((m) => Number(m[1]));
  assert.ok(shown.length > 5, part.content);
  assert.doesNotMatch(part.content, /away\.\n\nDrip line/, 'no paragraph break where the page has none');
});

test('a long paragraph is shown by the run of sentences that matches, the rest of it left to read on', () => {
  const filler = (i: number) => `Sentence ${i} is about the soil, the pots and the balcony in general terms.`;
  const sentences = Array.from({ length: 24 }, (_, i) => filler(i));
  sentences[17] = 'A drip line on a timer keeps the soil evenly moist while you are away.';
  const page = `# Balcony tomatoes\n\n${sentences.join(' ')}`;
  assert.ok(countTokens(page) > 300);
  const part = selectForQuery(page, 'drip line timer', 100)!;
  assert.ok(part.tokenCount <= 100, `${part.tokenCount}`);
  assert.match(part.content, /A drip line on a timer keeps the soil evenly moist/);
  assert.doesNotMatch(part.content, /Sentence 2 is/, 'not the paragraph from its start');
  const rest = withoutRanges(page, part.shown);
  assert.doesNotMatch(rest, /A drip line/);
  assert.match(rest, /Sentence 2 is about/);
});

test('the budget goes to blocks that match other query terms before repeats of the same match', () => {
  const LONGER = 'Each note goes on about the weather, the light on the balcony and the neighbours for a while.';
  const page = [
    '# Notes',
    'Some notes from the season.',
    ...Array.from(
      { length: 5 },
      (_, i) => `## Day ${i}\n\nNote ${i}: harvest what is ripe and leave the rest on the plant. ${LONGER}`,
    ),
    ...Array.from(
      { length: 3 },
      (_, i) => `## Day ${i + 5}\n\nDrip note ${i}: a drip line on a timer saves the evening round. ${LONGER}`,
    ),
  ].join('\n\n');
  // Room for two notes besides the first line: one drip note (the rarer term) and one harvest note, not two drip notes.
  const part = selectForQuery(page, 'drip harvest', 150)!;
  assert.equal(part.content.match(/Drip note/g)?.length, 1, part.content);
  assert.match(part.content, /harvest what is ripe/);
});

test('null when no block fits the budget', () => {
  assert.equal(selectForQuery(GUIDE, 'drip', 3), null);
});

test('real pages: the budget holds, the shown ranges are few and disjoint, and part + rest hold every word', () => {
  const pages = Object.values(truth).slice(0, 60);
  for (const page of pages) {
    const body = page.articleBody;
    const query = body.split(/\s+/).slice(40, 44).join(' ') || 'the page';
    for (const budget of [50, 200, 500]) {
      const part = selectForQuery(body, query, budget);
      if (part === null) continue;
      assert.ok(part.tokenCount <= budget, `${part.tokenCount} > ${budget}`);
      assert.ok(part.shown.length <= MAX_SHOWN_RANGES);
      part.shown.forEach(([start, end], i) => {
        assert.ok(start < end);
        if (i > 0) assert.ok(part.shown[i - 1]![1] <= start);
      });
      const shownText = part.shown.map(([start, end]) => body.slice(start, end)).join('\n');
      const rest = withoutRanges(body, part.shown);
      const words = (s: string) => s.split(/\s+/).filter(Boolean).sort();
      assert.deepEqual(words(`${shownText}\n${rest}`), words(body), 'nothing lost, nothing repeated');
    }
  }
});
