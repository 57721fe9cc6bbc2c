// include and exclude on a page: document order, nested matches once, counts, selectors checked by the engine that
// applies them, and pages nested too deep to select in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractSelection, selectorProblem } from '../../src/extract/selection.js';

const PAGE = `<!doctype html><html><head><title>Doc</title></head><body>
<nav class="menu"><a href="/a">Menu link</a></nav>
<main><section id="one"><h2>One</h2><p class="note">First note.</p><div class="note"><p class="note">Inner note.</p></div></section>
<section id="two"><h2>Two</h2><p>Second section text that is long enough to be kept by the main content extraction of the page.</p></section></main>
</body></html>`;

test('include: matches in document order, an element inside another match once, whatever the selector order', () => {
  const out = extractSelection(PAGE, 'https://example.com/', { include: ['h2', '.note', 'nav'], exclude: [] });
  assert.equal(out.applied, true);
  assert.equal(out.included, 5, 'nav, h2, p.note, div.note, h2: the inner p.note is inside div.note');
  assert.equal(out.excluded, null);
  assert.equal(out.markdown, '[Menu link](https://example.com/a)\n\n## One\n\nFirst note.\n\nInner note.\n\n## Two');
  assert.equal(out.text, 'Menu link\n\nOne\n\nFirst note.\n\nInner note.\n\nTwo');
});

test('exclude removes before the usual extraction; with include, before matching', () => {
  const out = extractSelection(PAGE, 'https://example.com/', { include: [], exclude: ['#two', '.note'] });
  assert.equal(out.excluded, 3, '#two, p.note and div.note (the p inside it went with it)');
  assert.match(out.markdown, /## One/);
  assert.doesNotMatch(out.markdown, /Second section|note\./);
  const both = extractSelection(PAGE, 'https://example.com/', { include: ['section'], exclude: ['h2'] });
  assert.equal(both.included, 2);
  assert.doesNotMatch(both.markdown, /## /);
  assert.match(both.markdown, /First note\./);
});

test('selectors are checked by the engine that applies them', () => {
  assert.equal(selectorProblem('main > p:not(.x):nth-child(2n+1)'), null);
  assert.equal(selectorProblem(':is(main, article) h2'), null);
  assert.match(selectorProblem('div[') ?? '', /\S/);
  assert.match(selectorProblem('p::before') ?? '', /Pseudo-elements are not supported/);
  assert.match(selectorProblem('   ') ?? '', /empty/);
});

test('a page nested too deep to select in is extracted as usual, saying so', () => {
  const deep = `<html><body>${'<div>'.repeat(2000)}<p>Deep text here.</p>${'</div>'.repeat(2000)}</body></html>`;
  const out = extractSelection(deep, 'https://example.com/', { include: ['p'], exclude: [] });
  assert.equal(out.applied, false);
  assert.match(out.text, /Deep text here/);
});
