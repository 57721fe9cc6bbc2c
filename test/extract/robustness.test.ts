// Hostile or broken input: every text pass stays linear, and pages nested thousands deep still give their text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { convertToMarkdown, resolveMarkdownUrls, tidyMarkdown } from '../../src/extract/markdown.js';
import { normaliseHtml, stripInertMarkup } from '../../src/extract/parse.js';

/** Each input below takes minutes with a backtracking (quadratic) pass and milliseconds with a linear one. */
const SECOND = 1000;

function assertFast(name: string, run: () => unknown): void {
  const started = performance.now();
  run();
  const elapsed = performance.now() - started;
  assert.ok(elapsed < SECOND, `${name} took ${Math.round(elapsed)} ms`);
}

test('string passes stay linear on pathological input', () => {
  assertFast('normaliseHtml, unclosed <html', () => normaliseHtml('<html '.repeat(200_000)));
  assertFast('normaliseHtml, unclosed <head>', () => normaliseHtml('<head>'.repeat(200_000)));
  assertFast('stripInertMarkup, unclosed <svg>', () => stripInertMarkup('<svg>'.repeat(200_000)));
  assertFast('stripInertMarkup, unclosed <script>', () => stripInertMarkup('<script>'.repeat(200_000)));
  assertFast('tidyMarkdown, long run of spaces', () => tidyMarkdown(`${' '.repeat(200_000)}x`));
  assertFast('resolveMarkdownUrls, unclosed targets', () =>
    resolveMarkdownUrls('[a](<'.repeat(100_000), 'https://x.example/'),
  );
  assertFast('tidyMarkdown, quote markers before a fence', () =>
    tidyMarkdown(`${'> '.repeat(100_000)}\`\`\`x\n${'> '.repeat(100_000)}`),
  );
  assertFast('convertToMarkdown, a paragraph of line breaks', () =>
    convertToMarkdown(`<p>${'a  b<br>'.repeat(50_000)}</p>`),
  );
  assertFast('convertToMarkdown, quotes and lists nested deep', () =>
    convertToMarkdown(`${'<blockquote><ul><li>a'.repeat(150)}${'</li></ul></blockquote>'.repeat(150)}`),
  );
});

test('script, style, svg and comments are cut before parsing; an unclosed script ends the page', () => {
  assert.equal(
    stripInertMarkup(
      'a<SCRIPT type="x">if (a<b) {}</script >b<!-- note -->c<style>p{}</style>d<svg><path/></svg>e<script>open',
    ),
    'abcde',
  );
});

test('a page nested thousands deep gives its text and metadata', () => {
  const page = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(5000)}Deep &amp; buried text</body></html>`;
  const result = extractHtml(page, 'https://x.example/');
  assert.equal(result.title, 'Deep');
  assert.equal(result.text, 'Deep & buried text');
  assert.equal(result.markdown, '# Deep\n\nDeep & buried text');
});

test('a body of bare text is kept whole', () => {
  const text = 'a < b and c > d. '.repeat(2000).trim();
  const result = extractHtml(text, 'https://x.example/');
  assert.equal(result.text, text);
});
