// Declared articles built like landing pages (landing.ts): a dozen headed sections. Their Readability pick must cover
// as much of the page as on a page that declares nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { looksLikeLandingPage } from '../../src/extract/landing.js';
import { parseDocument } from '../../src/extract/parse.js';

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
