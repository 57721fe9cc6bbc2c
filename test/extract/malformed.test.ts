// Badly formed pages that browsers build a full tree from: content before <html>, elements between </head> and
// <body>, html/head/body twice, body elements inside <head>, content after </html>. Each must give its article.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { hasPlainSkeleton, normaliseHtml, parseDocument } from '../../src/extract/parse/parse.js';
import { PAGE_URL, paragraph } from './pages.js';

const ARTICLE = [1, 2, 3, 4].map(paragraph).join('');
const HEAD = '<head><title>The bridge is rebuilt</title><meta charset="utf-8"></head>';

const SHAPES: Record<string, string> = {
  'content before <html>': `<p>Notice</p><html>${HEAD}<body><article>${ARTICLE}</article></body></html>`,
  'a meta before <head>': `<!DOCTYPE html><html><meta charset="utf-8">${HEAD}<body><article>${ARTICLE}</article></body></html>`,
  'elements between </head> and <body>': `<html>${HEAD}<div class="top">Top</div><body><article>${ARTICLE}</article></body></html>`,
  'a body element inside <head>': `<html><head><title>T</title><div>Banner</div></head><body><article>${ARTICLE}</article></body></html>`,
  'html, head and body twice': `<html>${HEAD}<body><html>${HEAD}<body><article>${ARTICLE}</article></body></html></body></html>`,
  'body twice': `<html>${HEAD}<body><body class="x"><article>${ARTICLE}</article></body></body></html>`,
  'content after </html>': `<html>${HEAD}<body><p>Top</p></body></html><article>${ARTICLE}</article>`,
};

for (const [shape, html] of Object.entries(SHAPES)) {
  test(`${shape}: the body holds the article, as in a browser`, () => {
    const source = normaliseHtml(html);
    assert.equal(hasPlainSkeleton(source), false);
    const doc = parseDocument(source);
    for (const n of [1, 2, 3, 4]) assert.ok(doc.body.textContent?.includes(`Paragraph ${n} `), `paragraph ${n}`);
    const { text } = extractHtml(html, PAGE_URL);
    for (const n of [1, 2, 3, 4]) assert.ok(text.includes(`Paragraph ${n} `), `paragraph ${n} missing: ${text}`);
  });
}

test('a plain page keeps the fast parse; tracking pixels in a head <noscript> do not count as malformed', () => {
  const plain = `<!DOCTYPE html>\n<html lang="en">\n${HEAD}\n<body><article>${ARTICLE}</article></body>\n</html>\n`;
  assert.equal(hasPlainSkeleton(normaliseHtml(plain)), true);
  const pixel = plain.replace('</head>', '<noscript><img src="/p.gif"></noscript></head>');
  assert.equal(hasPlainSkeleton(normaliseHtml(pixel)), true);
});

test('misnested and unclosed tags follow the WHATWG rules on the spec parse', () => {
  const doc = parseDocument(normaliseHtml(`<p>a</p><html><body><p>x <b>bold <i>both</b> italic</i></p></body></html>`));
  assert.equal(doc.body.innerHTML, '<p>a</p><p>x <b>bold <i>both</i></b><i> italic</i></p>');
});

test('a page whose content is hidden until a script shows it gives that content, not empty_content', () => {
  const html = `<html>${HEAD}<body><div id="app"></div><div hidden id="S:0"><article>${ARTICLE}</article></div></body></html>`;
  const { text } = extractHtml(html, PAGE_URL);
  for (const n of [1, 2, 3, 4]) assert.ok(text.includes(`Paragraph ${n} `), `paragraph ${n} missing: ${text}`);
});

test('a streamed page whose visible <main> is an empty skeleton gives the hidden content, not empty_content', () => {
  const skeleton = '<main><div class="loading"></div></main>';
  const html = `<html>${HEAD}<body>${skeleton}<div hidden id="S:0"><main>${ARTICLE}</main></div></body></html>`;
  const { text } = extractHtml(html, PAGE_URL);
  for (const n of [1, 2, 3, 4]) assert.ok(text.includes(`Paragraph ${n} `), `paragraph ${n} missing: ${text}`);
});
