// React's streamed rendering: a boundary's content arrives at the end of the page in <div hidden id="S:n">, and an
// inline script (never run here) moves it over the boundary's fallback. Extraction reads the page as that script
// leaves it: the content in its place, the fallback gone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { paragraph, PAGE_URL, SITE_FOOTER, SITE_HEADER } from './pages.js';

const page = (main: string, tail: string) =>
  '<!DOCTYPE html><html><head><title>Bridge</title></head><body>' +
  `${SITE_HEADER}<main><h1>The bridge is rebuilt</h1>${main}</main>${SITE_FOOTER}${tail}` +
  '<script>$RC("B:0","S:0")</script></body></html>';

test('a streamed segment replaces its boundary fallback, nested boundaries included', () => {
  const html = page(
    `${paragraph(1)}<!--$?--><template id="B:0"></template><div class="skeleton">Loading paragraph...</div><!--/$-->` +
      paragraph(5),
    `<div hidden id="S:0">${paragraph(2)}<!--$?--><template id="B:1"></template><p>Loading more...</p><!--/$--></div>` +
      `<div hidden id="S:1">${paragraph(3)}${paragraph(4)}</div>`,
  );
  const { text } = extractHtml(html, PAGE_URL);
  const order = [1, 2, 3, 4, 5].map((n) => text.indexOf(`Paragraph ${n} explains`));
  assert.ok(
    order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!)),
    text,
  );
  for (const fallback of ['Loading paragraph', 'Loading more']) assert.ok(!text.includes(fallback), text);
});

test('without the boundary comments the segment still goes in place, its fallback left as it is', () => {
  const html = page(
    `${paragraph(1)}<template id="B:0"></template><div>Loading paragraph...</div>${paragraph(3)}`,
    `<div hidden id="S:0">${paragraph(2)}</div>`,
  );
  const { text } = extractHtml(html, PAGE_URL);
  const [one, two, three] = [1, 2, 3].map((n) => text.indexOf(`Paragraph ${n} explains`));
  assert.ok(one! >= 0 && two! > one! && three! > two!, text);
});

test('a hidden element that no boundary waits for stays hidden', () => {
  const html = page(
    paragraph(1) + paragraph(2),
    '<div hidden id="S:7"><p>A dialog that only a click would open, long enough to read as prose if shown.</p></div>',
  );
  const { text } = extractHtml(html, PAGE_URL);
  assert.ok(text.includes('Paragraph 2 explains') && !text.includes('A dialog'), text);
});
