// What a theme adds around a landing page's content and a reader never reads as the page: a ticker's copies, calls to
// action alone on their line, reading times, loading placeholders, a video's fallback text, and a card's heading
// written twice (its resting and hover faces). Each goes; the same words inside prose, code or a list stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { assertContains, paragraph } from './pages.js';

function landing(sections: string): ReturnType<typeof extractHtml> {
  const html =
    '<!DOCTYPE html><html lang="en"><head><title>Packaging design | Studio</title></head><body>' +
    `<main><h1>Packaging design</h1>${paragraph(1)}${sections}${paragraph(2)}</main></body></html>`;
  return extractHtml(html, 'https://studio.example/packaging');
}

const count = (text: string, phrase: string) => text.split(phrase).length - 1;

test("a ticker's copies are said once; a paragraph that marks a name each time keeps every mention", () => {
  const ticker = `<div class="marquee">${'<span>Book Now <span>*</span></span>'.repeat(40)}</div>`;
  const named = '<p><b>Joe</b> teaches drums. <b>Joe</b> is patient. <b>Joe</b> is funny. <b>Joe</b> is kind.</p>';
  const { text } = landing(ticker + named);
  assert.equal(count(text, 'Book Now'), 1, text);
  assert.equal(count(text, 'Joe'), 4, text);
});

test('a placeholder grid of "Loading..." goes, and a row of three equal items stays', () => {
  const placeholders = `<ul>${'<li><h3>Loading...</h3></li>'.repeat(6)}</ul>`;
  const ticks = '<div><span>Included</span><span>Included</span><span>Included</span></div>';
  const { text } = landing(placeholders + ticks);
  assert.equal(count(text, 'Loading'), 0, text);
  assert.equal(count(text, 'Included'), 3, text);
});

test('calls to action alone on their line go; the same words inside a sentence stay', () => {
  const cards =
    '<div><h3>Brand strategy</h3><p>We research your market and name your position in it.</p>' +
    '<p><a href="/brand">Learn more →</a></p><div><a href="/demo">Book a demo</a></div></div>' +
    '<p>To <a href="/about">learn more</a> about our studio, read the story of its founders.</p>';
  const { markdown, text } = landing(cards);
  assertContains(markdown, ['We research your market', 'To [learn more](https://studio.example/about) about'], []);
  assert.ok(!/Learn more →|Book a demo/.test(text), text);
});

test('reading times and "Loading reviews…" go; code that returns "Loading..." keeps it', () => {
  const bits =
    '<div><span>5 min read</span></div><p>Loading reviews…</p>' +
    "<pre><code>function label() {\n  return 'Loading...';\n}</code></pre>";
  const { markdown } = landing(bits);
  assert.ok(!/min read|Loading reviews/.test(markdown), markdown);
  assert.match(markdown, /return 'Loading\.\.\.';/);
});

test("a video's fallback text goes with the video", () => {
  const video =
    '<video controls src="/intro.mp4"><source src="/intro.webm">Your browser does not support the video tag.</video>';
  const { text } = landing(video);
  assert.ok(!text.includes('does not support'), text);
});

test("a heading written twice in a row is said once; a list's equal items and code's equal lines stay", () => {
  const card =
    '<div class="card"><div class="face"><h3>Workflow agent: plain words become automated steps</h3></div>' +
    '<div class="hover"><h3>Workflow agent: plain words become automated steps</h3><a href="/blog">Read blog</a>' +
    '</div></div><ul><li>Free custom domain</li><li>Free custom domain</li></ul>' +
    '<pre><code>retry now\nretry now</code></pre>';
  const { markdown } = landing(card);
  assert.equal(count(markdown, 'Workflow agent'), 1, markdown);
  assert.equal(count(markdown, 'Free custom domain'), 2, markdown);
  assert.equal(count(markdown, 'retry now'), 2, markdown);
});
