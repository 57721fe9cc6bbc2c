// Declared articles built like landing pages (landing.ts): a dozen headed sections. Their Readability pick must cover
// as much of the page as on a page that declares nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { looksLikeLandingPage } from '../../src/extract/page-type/landing.js';
import { parseDocument } from '../../src/extract/parse/parse.js';
import { assertContains, paragraph } from './pages.js';

const page = (body: string) => parseDocument(`<html><head><title>x</title></head><body>${body}</body></html>`);
const section = (i: number) => `<section><h2>Feature ${i}</h2><p>What feature ${i} does for you.</p></section>`;
const sections = (count: number) => Array.from({ length: count }, (_, i) => section(i)).join('');

test('a page of ten headed sections looks like a landing page, a story of four does not', () => {
  assert.equal(looksLikeLandingPage(page(sections(4))), false);
  assert.equal(looksLikeLandingPage(page(sections(10))), true);
});

test('sections without their own heading do not count', () => {
  const unheaded = sections(10)
    .replace(/<h2>/g, '<b>')
    .replace(/<\/h2>/g, '</b>');
  assert.equal(looksLikeLandingPage(page(unheaded)), false);
});

/** A page og:type calls an article: one long band Readability keeps, two shorter bands beside it. */
function declaredPage(head: string): string {
  const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');
  const band = (name: string, words: number) =>
    `<div class="band"><div class="wrap"><h2>Our ${name}</h2><p>${prose(words, name)}.</p></div></div>`;
  return (
    `<html><head><title>Services</title><meta property="og:type" content="article">${head}</head><body>` +
    `${band('consulting', 200)}${band('pricing', 80)}${band('support', 80)}</body></html>`
  );
}
const jsonLd = (type: string) => `<script type="application/ld+json">{"@type":"${type}","name":"Services"}</script>`;

test('a declared article that its JSON-LD calls a WebPage, with no author, keeps every band', () => {
  const { text } = extractHtml(declaredPage(jsonLd('WebPage')), 'https://agency.example/services');
  for (const band of ['Our consulting', 'Our pricing', 'Our support']) assert.ok(text.includes(band), band);
});

test('a post (an Article node, or a named author) keeps Readability pick', () => {
  const posting = extractHtml(declaredPage(jsonLd('BlogPosting')), 'https://agency.example/blog/1').text;
  assert.ok(posting.includes('Our consulting') && !posting.includes('Our pricing'), posting);
  const authored = declaredPage(`${jsonLd('WebPage')}<meta name="author" content="Ann Lee">`);
  const { text } = extractHtml(authored, 'https://agency.example/blog/2');
  assert.ok(text.includes('Our consulting') && !text.includes('Our pricing'), text);
});

/** An undeclared service page: a long band of prose Readability keeps, and a band of short headed feature cards. */
function featurePage(cards: number): string {
  const prose = Array.from({ length: 12 }, (_, i) => paragraph(i)).join('');
  const card = (i: number) => `<div class="card"><h3>Feature ${i}</h3><p>Saves you time ${i}.</p></div>`;
  const grid = Array.from({ length: cards }, (_, i) => card(i)).join('');
  return (
    `<html><head><title>Bridges</title></head><body><div class="band"><h2>About us</h2>${prose}</div>` +
    `<div class="band"><h2>What you get</h2><div class="grid">${grid}</div></div></body></html>`
  );
}

test('a pick that leaves out eight headed feature cards gives way to the page minus boilerplate', () => {
  const { text } = extractHtml(featurePage(8), 'https://bridges.example/services');
  assertContains(text, ['Paragraph 11', 'Feature 0', 'Feature 7', 'Saves you time 7'], []);
  const few = extractHtml(featurePage(3), 'https://bridges.example/services').text;
  assertContains(few, ['Paragraph 11'], ['Feature 0']);
});
