// Pages whose content is a list of entries under a short introduction (an index of languages, a table of prize
// winners): Readability's pick is the introduction and the list, and the list must survive both Readability and the
// pruning of link lists that an article's teasers get.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { articlePage, paragraph, PAGE_URL } from './pages.js';

const ARTICLE_HEAD = '<meta property="og:type" content="article">';
const intro = [1, 2, 3, 4, 5, 6, 7].map(paragraph).join('');

function entries(count: number): string {
  const items = Array.from(
    { length: count },
    (_, i) => `<li><a href="/wiki/entry-${i}">Entry number ${i} of the index</a></li>`,
  );
  return `<h2>Entries</h2><ul>${items.join('')}</ul>`;
}

test('on an article, a list of links longer than the prose above it is the content and stays', () => {
  const { text } = extractHtml(articlePage(intro + entries(60), ARTICLE_HEAD), PAGE_URL);
  assert.ok(text.includes('Entry number 0 of the index'), text);
  assert.ok(text.includes('Entry number 59 of the index'), text);
  assert.ok(!text.includes('Mayor opens the summer fair'), text);
});

const storyLinks =
  '<ul><li><a href="/x">Another story worth a look today</a></li><li><a href="/y">And one more story</a></li></ul>';

test('a short list of links below a long article is still pruned as teasers', () => {
  const { text } = extractHtml(articlePage(intro + storyLinks, ARTICLE_HEAD), PAGE_URL);
  assert.ok(text.includes('Paragraph 7 explains'), text);
  assert.ok(!text.includes('Another story worth a look'), text);
});

test('the same list on a page that does not declare an article is kept', () => {
  const { text } = extractHtml(articlePage(intro + storyLinks), PAGE_URL);
  assert.ok(text.includes('Paragraph 7 explains'), text);
  assert.ok(text.includes('Another story worth a look'), text);
});

test('a data table whose class reads as chrome to Readability is kept', () => {
  const rows = Array.from(
    { length: 12 },
    (_, i) => `<tr><td>${1990 + i}</td><td>Physics</td><td><a href="/p/${i}">Laureate ${i}</a></td></tr>`,
  );
  const header = '<tr><th>Year</th><th>Prize</th><th>Winner</th></tr>';
  const table = `<table class="wikitable sticky-header">${header}${rows.join('')}</table>`;
  const { text } = extractHtml(articlePage(intro + table), PAGE_URL);
  assert.ok(text.includes('Laureate 11'), text);
});

/** A catalogue: a short intro, then cards that are each one link holding a title and a sentence about the course. */
function catalogue(description: (i: number) => string): string {
  const cards = Array.from(
    { length: 8 },
    (_, i) =>
      `<div class="card"><a href="/courses/${i}"><h3>Course ${i} in bridge building</h3>` +
      `<p>${description(i)}</p></a></div>`,
  );
  const intro = [1, 2, 3, 4].map(paragraph).join('');
  return articlePage(`${intro}</article><div class="grid">${cards.join('')}</div><article>`);
}

const describeCourse = (i: number) =>
  `Learn to plan, survey and rebuild stone bridges with practising engineers, part ${i}.`;

test('an intro kept alone on a page that declares nothing gives way to the page with its described cards', () => {
  const { text } = extractHtml(catalogue(describeCourse), PAGE_URL);
  assert.ok(text.includes('Paragraph 4 explains'), text);
  assert.ok(text.includes('rebuild stone bridges with practising engineers, part 7'), text);
});

test('cards that only name their items do not replace the intro', () => {
  const { text } = extractHtml(
    catalogue((i) => `£${10 + i}`),
    PAGE_URL,
  );
  assert.ok(text.includes('Paragraph 4 explains'), text);
  assert.ok(!text.includes('Course 7 in bridge building'), text);
});
