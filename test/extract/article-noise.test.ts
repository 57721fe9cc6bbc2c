// The heuristics that take an article's own noise out: named blocks (captions, bylines, bios, share bars, teasers),
// paragraphs that are one link, link lists, and the short lines at the article's edges. Each one through extractHtml.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropEmptyAndRepeatedLines, trimShortEdges } from '../../src/extract/markdown/edges.js';
import { extractHtml } from '../../src/extract/index.js';
import { articlePage, PAGE_URL, paragraph, SIDEBAR, SITE_FOOTER, SITE_HEADER } from './pages.js';

const BODY = [1, 2, 3, 4].map(paragraph).join('');
// Declared an article: link lists and teaser paragraphs are pruned from articles only (main-content.ts).
const extract = (article: string) =>
  extractHtml(articlePage(article, '<meta property="og:type" content="article">'), PAGE_URL);

test('captions, photo credits and gallery counters named as such go; the image stays', () => {
  const figure =
    '<div class="image-wrapper"><img src="/bridge.jpg" alt="The bridge at dawn">' +
    '<span class="image-credit">Photo: Jane Roe / Agency</span><div class="slideshow-counter">Image 1 of 9</div></div>';
  const { markdown, text } = extract(paragraph(1) + figure + [2, 3, 4].map(paragraph).join(''));
  assert.match(markdown, /!\[The bridge at dawn\]\(https:\/\/news\.example\/bridge\.jpg\)/);
  for (const noise of ['Jane Roe', 'Image 1 of 9']) assert.ok(!markdown.includes(noise), noise);
  assert.ok(text.includes('Paragraph 4 explains'));
});

test('bylines and datelines go, by class token or a part of one', () => {
  const byline =
    '<div class="article_byline">By Jane Roe and John Doe, Staff Writers</div><p class="post-meta">Updated 11:21 pm, November 19</p>';
  const { text } = extract(byline + BODY);
  assert.ok(!text.includes('Jane Roe'));
  assert.ok(!text.includes('Updated 11:21'));
  assert.ok(text.startsWith('Paragraph 1 explains'));
});

test('a wrapper that happens to carry a noise name is kept when it holds much more text than such a block', () => {
  // "meta" names a byline block up to 200 characters; this one wraps the whole article.
  const { text } = extract(`<div class="entry-meta">${BODY}</div>`);
  for (const n of [1, 2, 3, 4]) assert.ok(text.includes(`Paragraph ${n} explains`), `paragraph ${n}`);
});

test('author bios, share bars, tag lists and related-story boxes inside the article go', () => {
  const tail =
    '<div class="author-bio"><p>Jane Roe has covered the council for the Courier since 2009 and writes about rivers, roads and the people who mend them.</p></div>' +
    '<div class="share-tools"><a href="/s/fb">Share on Facebook</a> <a href="/s/x">Share on X</a></div>' +
    '<div class="post-tags">Filed under: bridges, floods, council</div>' +
    '<div class="related-stories"><h3>More on this</h3><p>The ferry returns while the new crossing is built on the south bank of the river.</p></div>';
  const { text } = extract(BODY + tail);
  for (const noise of ['covered the council', 'Facebook', 'Filed under', 'ferry returns', 'More on this']) {
    assert.ok(!text.includes(noise), noise);
  }
  assert.ok(text.endsWith('beyond any hope of repair.'));
});

test('a paragraph that is all one link is a teaser; a paragraph with a link in its prose is kept', () => {
  const teaser =
    '<p><strong><a href="/other">READ MORE: Council approves the budget for next year after a long debate</a></strong></p>';
  const prose =
    '<p>The engineers published <a href="/report">their full report</a> on the damage, which runs to two hundred pages of careful survey work.</p>';
  const { text } = extract(paragraph(1) + paragraph(2) + teaser + prose + paragraph(3));
  assert.ok(!text.includes('READ MORE'));
  assert.ok(text.includes('The engineers published their full report on the damage'));
});

test('a list that is mostly links inside the article goes; a list of prose items stays', () => {
  const links =
    '<ul><li><a href="/a">Floods close the ring road again this week</a></li><li><a href="/b">Why bridges fail: an engineer explains</a></li><li><a href="/c">Ten photos of the old bridge</a></li></ul>';
  const steps =
    '<ul><li>Survey the foundations of each pier before any work starts.</li><li>Replace the damaged stones with matching granite from the quarry.</li></ul>';
  const { text } = extract(paragraph(1) + paragraph(2) + links + steps + paragraph(3));
  assert.ok(!text.includes('ring road'));
  assert.ok(text.includes('Survey the foundations of each pier'));
});

test('short lines before the first and after the last sentence go; images, code, tables and an opening heading stay', () => {
  const sentence = 'The council voted on Tuesday to rebuild the stone bridge by spring.';
  const markdown = [
    'By Jane Roe',
    'Updated 11:21 pm',
    '![Bridge](https://news.example/b.jpg)',
    '## Background',
    sentence,
    'Short middle line',
    sentence,
    'Share',
    '## Most popular',
  ].join('\n\n');
  assert.equal(
    trimShortEdges(markdown),
    ['![Bridge](https://news.example/b.jpg)', '## Background', sentence, 'Short middle line', sentence].join('\n\n'),
  );
  const code = ['```js', 'x()', '```', sentence, '| a | b |'].join('\n');
  assert.equal(trimShortEdges(code), code);
  // CJK text has no spaces: a line of twelve characters is a sentence, not a label.
  assert.equal(trimShortEdges('日本語の文章はこの通りです。\n\nシェア'), '日本語の文章はこの通りです。');
});

test('the edges of a page that is not an article (the fallback) are its content and stay', () => {
  const listing =
    '<html><body><main><h1>Bridges of the county</h1><ul>' +
    ['Old Mill bridge', 'Ferry Lane bridge', 'Church Street bridge'].map((name) => `<li>${name}</li>`).join('') +
    '</ul><p>Last item</p></main></body></html>';
  const { text } = extractHtml(listing, PAGE_URL);
  assert.ok(text.includes('Old Mill bridge'));
  assert.ok(text.includes('Last item'));
});

test('menus, asides and controls inside the article container go', () => {
  const chrome =
    '<nav><a href="/prev">Previous story in the series about rivers</a></nav>' +
    '<aside><p>Pull-out box: sign up for the Courier morning briefing, delivered every day at seven.</p></aside>' +
    '<button>Listen to this article</button><iframe src="/player"></iframe>';
  const { text } = extract(paragraph(1) + chrome + [2, 3, 4].map(paragraph).join(''));
  for (const noise of ['Previous story', 'morning briefing', 'Listen to this']) assert.ok(!text.includes(noise), noise);
  assert.ok(text.includes('Paragraph 2 explains'));
});

test('a trailing line of images without alt text (share icons) is trimmed like a label; a described photo stays', () => {
  const sentence = 'The council voted on Tuesday to rebuild the stone bridge by spring.';
  const icons =
    '![](https://cdn.example/fb-icon.png) ![](https://cdn.example/x-icon.png) ![](https://cdn.example/mail-icon.png)';
  const photo = '![The new bridge at dusk](https://news.example/dusk.jpg)';
  assert.equal(trimShortEdges([sentence, '### Join the conversation', icons].join('\n\n')), sentence);
  assert.equal(trimShortEdges([sentence, photo].join('\n\n')), [sentence, photo].join('\n\n'));
  // Image URLs are not words: a row of eight icons is a label line however long it is.
  const row = Array.from({ length: 8 }, (_, i) => `[![](https://cdn.example/${i}.png)](https://s.example/${i})`).join(
    ' ',
  );
  assert.equal(trimShortEdges([sentence, row].join('\n\n')), sentence);
});

test('empty list items (script-filled widget slots) go; list markers inside code stay', () => {
  assert.equal(
    dropEmptyAndRepeatedLines('Text\n\n### Top video\n\n-\n- \n1.\n\n## Next'),
    'Text\n\n### Top video\n\n## Next',
  );
  const code = '```\n-\n1.\n```';
  assert.equal(dropEmptyAndRepeatedLines(code), code);
  const { markdown } = extract(BODY + '<h3>Top video</h3><ul><li></li><li> </li></ul>');
  assert.ok(!/^\s*-\s*$/m.test(markdown), markdown);
});

test('the page-level header and footer go before Readability runs; a header inside the article stays', () => {
  const page =
    '<html><head><title>Smalltown library</title></head><body><header class="top"><a href="/">Smalltown Council</a></header>' +
    '<div><h2>Hours</h2><ul><li>Monday to Friday 9 to 17</li><li>Saturday 10 to 14</li></ul></div>' +
    '<footer><a href="/contact">Contact the council</a></footer></body></html>';
  assert.equal(
    extractHtml(page, PAGE_URL).markdown,
    '# Smalltown library\n\n## Hours\n\n- Monday to Friday 9 to 17\n- Saturday 10 to 14',
  );
  const { text } = extract(
    '<header><p class="standfirst">Engineers finish the work two months early after a dry winter on the river.</p></header>' +
      BODY,
  );
  assert.ok(text.startsWith('Engineers finish the work two months early'), text);
});

test('a byline in a series of repeated items (posts of a thread) is kept; the article byline goes', () => {
  const post = (author: string, words: string) =>
    `<div class="post"><div class="post-meta"><a href="/u/${author}">${author}</a> wrote on May 3</div><p>${words} ${'and then some more words about the bridge. '.repeat(4)}</p></div>`;
  const { text } = extract(
    `<div class="byline">By Jane Roe</div>${BODY}<div class="thread">${post('Ann', 'One')}${post('Bob', 'Two')}${post('Cy', 'Three')}</div>`,
  );
  assert.ok(!text.includes('Jane Roe'));
  for (const author of ['Ann', 'Bob', 'Cy']) assert.ok(text.includes(author), author);
});

test('a noise name on the element that holds most of the page never removes it (a share_wrapper around the article)', () => {
  const page =
    '<!DOCTYPE html><html><head><title>Bridge</title></head><body>' +
    `${SITE_HEADER}<div class="share_wrapper"><div class="post"><h1>The bridge is rebuilt</h1>${paragraph(1)}` +
    `${paragraph(2)}</div></div>${SIDEBAR}${SITE_FOOTER}</body></html>`;
  const { text } = extractHtml(page, PAGE_URL);
  assert.ok(text.includes('Paragraph 1 explains') && text.includes('Paragraph 2 explains'), text);
  for (const noise of ['World news', 'Most read', 'Copyright']) assert.ok(!text.includes(noise), `${noise}: ${text}`);
});

test('nor on the element that holds most of its paragraphs, when menus and a hidden copy outweigh its text', () => {
  // A theme's `sidebar-layout` around the post, a republishing box holding the post again as HTML source, a big menu.
  const post = Array.from({ length: 12 }, (_, i) => paragraph(i + 1)).join('');
  const menu = Array.from({ length: 120 }, (_, i) => `<li><a href="/topic/${i}">Topic number ${i}</a></li>`).join('');
  const page =
    '<!DOCTYPE html><html><head><title>Bridge</title></head><body>' +
    `<header class="site-header"><ul>${menu}</ul></header>` +
    '<section class="hero"><h1>The bridge is rebuilt</h1><p>How the council rebuilt the stone bridge.</p>' +
    '<p>The new bridge at dawn, seen from the east bank of the river.</p></section><article><div class="sidebar-layout">' +
    `<div class="sidebar-content">${post}</div></div>` +
    `<textarea class="republish" readonly>${post.replace(/</g, '&lt;')}</textarea></article>${SITE_FOOTER}</body></html>`;
  const { text } = extractHtml(page, PAGE_URL);
  assert.ok(text.includes('Paragraph 1 explains') && text.includes('Paragraph 12 explains'), text.slice(0, 300));
  for (const noise of ['Topic number 7', 'Copyright'])
    assert.ok(!text.includes(noise), `${noise}: ${text.slice(0, 300)}`);
});
