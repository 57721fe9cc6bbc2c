// A page whose text exists only in a <noscript> (a forum engine's copy for readers without JavaScript) is extracted
// from it; a noscript that only asks for JavaScript or holds a tracking pixel stays boilerplate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';

const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');

const posts = ['alice', 'bob', 'carol']
  .map((name) => `<article><h3 class="author">${name}</h3><p>Post by ${name}: ${prose(60, name)}.</p></article>`)
  .join('');

test('a page shown only to scripts is read from its noscript copy, posts and authors together', () => {
  const html = `<html><head><title>Thread</title></head><body><div id="app">Loading...</div>
    <noscript id="content"><h1>Which telescope first?</h1>${posts}</noscript></body></html>`;
  const { text } = extractHtml(html, 'https://forum.example/d/1');
  for (const name of ['alice', 'bob', 'carol']) {
    assert.ok(text.includes(name), text);
    assert.ok(text.includes(`Post by ${name}`), text);
  }
});

test('a noscript beside the page text stays out', () => {
  const html = `<html><head><title>Story</title></head><body><article><h1>Story</h1><p>${prose(200, 'story')}.</p>
    </article><noscript><p>Please enable JavaScript to see the comments. ${prose(120, 'notice')}.</p></noscript>
    </body></html>`;
  const { text } = extractHtml(html, 'https://news.example/story');
  assert.ok(text.includes('story0'), text);
  assert.ok(!text.includes('enable JavaScript'), text);
});
