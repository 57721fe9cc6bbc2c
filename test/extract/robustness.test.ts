// Hostile or broken input: every text pass stays linear, and pages nested thousands deep still give their text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { convertToMarkdown, resolveMarkdownUrls, tidyMarkdown } from '../../src/extract/markdown/markdown.js';
import { MAX_NESTING } from '../../src/extract/markdown/nesting.js';
import { cleanContent } from '../../src/extract/clean/clean.js';
import { normaliseHtml, parseDocument, stripInertMarkup } from '../../src/extract/parse/parse.js';

/**
 * Linear, not quadratic: the same pass on an input 8 times as long costs about 8 times the CPU, where a backtracking
 * pass costs 64 times; the bound sits between the two (their geometric mean), as garbage collection on a loaded
 * machine pushed linear passes to 2.3 times their ratio at 4×. CPU time (not wall time), the least of five runs, and
 * a ratio within one run: what the rest of a loaded machine does cancels out. A ratio over the bound is measured
 * again, up to three times: a collection landing in the large runs once pushed a pass that measures 14–16× to 25.7×
 * (a fresh-clone CI run), while a quadratic pass is over the bound every time.
 */
function assertLinear(name: string, run: (scale: number) => unknown): void {
  const cpu = (scale: number) => {
    let least = Infinity;
    for (let i = 0; i < 5; i++) {
      const before = process.cpuUsage();
      run(scale);
      const used = process.cpuUsage(before);
      least = Math.min(least, used.user + used.system);
    }
    return Math.max(least, 1_000); // below a millisecond, timer resolution decides; such a pass is fast either way
  };
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio >= 22; attempt++) ratio = Math.min(ratio, cpu(8) / cpu(1));
  assert.ok(ratio < 22, `${name}: 8× the input took ${ratio.toFixed(1)}× the CPU (the least of three tries)`);
}

test('string passes stay linear on pathological input', () => {
  const n = 50_000;
  assertLinear('normaliseHtml, unclosed <html', (k) => normaliseHtml('<html '.repeat(n * k)));
  assertLinear('normaliseHtml, unclosed <head>', (k) => normaliseHtml('<head>'.repeat(n * k)));
  assertLinear('stripInertMarkup, unclosed <svg>', (k) => stripInertMarkup('<svg>'.repeat(n * k)));
  assertLinear('stripInertMarkup, unclosed <script>', (k) => stripInertMarkup('<script>'.repeat(n * k)));
  assertLinear('tidyMarkdown, long run of spaces', (k) => tidyMarkdown(`${' '.repeat(n * k)}x`));
  assertLinear('resolveMarkdownUrls, unclosed targets', (k) =>
    resolveMarkdownUrls('[a](<'.repeat((n / 2) * k), 'https://x.example/'),
  );
  assertLinear('tidyMarkdown, quote markers before a fence', (k) =>
    tidyMarkdown(`${'> '.repeat((n / 2) * k)}\`\`\`x\n${'> '.repeat((n / 2) * k)}`),
  );
  assertLinear('convertToMarkdown, a paragraph of line breaks', (k) =>
    convertToMarkdown(`<p>${'a  b<br>'.repeat((n / 4) * k)}</p>`),
  );
  // Past MAX_NESTING levels quotes and lists are unwrapped (src/extract/markdown/nesting.ts): depth costs no more
  // than length.
  assertLinear('convertToMarkdown, quotes and lists nested deep', (k) =>
    convertToMarkdown(`${'<blockquote><ul><li>a'.repeat(1000 * k)}${'</li></ul></blockquote>'.repeat(1000 * k)}`),
  );
});

test("the chosen content's cleaning stays linear: rows of copies, calls to action, placeholders", () => {
  const n = 4_000;
  const clean = (html: string) =>
    cleanContent(parseDocument(`<body><div>${html}</div></body>`).body, 'https://x.example/');
  assertLinear('a ticker of copies', (k) => clean(`<div>${'<span>Book Now <b>*</b></span>'.repeat(n * k)}</div>`));
  assertLinear('copies that differ at the end', (k) =>
    clean(`<div>${'<span>Book Now <b>*</b></span>'.repeat(n * k)}<span>Other</span></div>`),
  );
  assertLinear('calls to action in one block', (k) => clean(`<p>${'<a href="/x">Learn more</a> '.repeat(n * k)}</p>`));
  assertLinear('a call to action beside empty slots', (k) =>
    clean(`<p><a href="/x">Learn more</a>${'<i></i>'.repeat(n * k)}</p>`),
  );
  assertLinear('placeholders inside code', (k) =>
    clean(`<pre><code>${'<span>Loading...</span>'.repeat(n * k)}</code></pre>`),
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

test('quotes nested past MAX_NESTING levels keep their text, at the deepest level allowed', () => {
  const deep = `${'<blockquote>'.repeat(MAX_NESTING + 10)}<p>the innermost words</p>${'</blockquote>'.repeat(MAX_NESTING + 10)}`;
  const markdown = convertToMarkdown(deep);
  assert.match(markdown, /the innermost words/);
  const markers = /^((?:> ?)+)the innermost words/m.exec(markdown)?.[1] ?? '';
  assert.equal(markers.replace(/ /g, '').length, MAX_NESTING);
  assert.equal(convertToMarkdown('<blockquote><p>shallow</p></blockquote>'), '> shallow');
});
