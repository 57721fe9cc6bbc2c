// The page-type profiles (page-type.ts): a page that declares a discussion keeps its comment-named posts, a page that
// does not call itself an article keeps its grids of cards, an article keeps dropping both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { detectPageType } from '../../src/extract/page-type.js';
import { parseDocument } from '../../src/extract/parse.js';

const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');

const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];

function thread(declaration: string): string {
  const replies = NAMES.map(
    (name) =>
      `<div class="comment" id="c-${name}"><span class="author">${name}</span><p>Reply by ${name}: ${prose(80, name)}.</p></div>`,
  ).join('');
  return `<html><head><title>Thread</title>${declaration}</head><body><nav><a href="/">Home</a></nav>
    <div class="thread"><h1>Which telescope first?</h1><p>${prose(120, 'question')}.</p>
    <div class="comments">${replies}</div></div></body></html>`;
}

test('the page type comes from JSON-LD, microdata and og:type', () => {
  const typeOf = (head: string, body = '', jsonLd: string[] = []) =>
    detectPageType(parseDocument(`<html><head>${head}</head><body>${body}</body></html>`), jsonLd);
  assert.equal(typeOf('', '', ['{"@type":"DiscussionForumPosting","headline":"x"}']), 'forum');
  assert.equal(typeOf('', '', ['{"@graph":[{"@type":"QAPage"}]}']), 'forum');
  assert.equal(typeOf('', '<div itemscope itemtype="https://schema.org/Comment">hi</div>'), 'forum');
  assert.equal(typeOf('', '', ['{"@type":"NewsArticle"}']), 'article');
  assert.equal(typeOf('<meta property="og:type" content="article">'), 'article');
  assert.equal(typeOf('', '', ['{"@type":"Product"}', '{"@type":"FAQPage"}']), 'other');
});

test('a forum thread keeps every comment-named post with its author; an article drops its comment section', () => {
  const forum = extractHtml(
    thread('<script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>'),
    'https://forum.example/t/1',
  ).text;
  for (const name of NAMES) assert.ok(forum.includes(`Reply by ${name}`), forum);
  const article = extractHtml(thread('<meta property="og:type" content="article">'), 'https://news.example/story').text;
  assert.ok(article.includes('question0'), article);
  assert.ok(!article.includes('Reply by alice'), article);
});

function listing(head: string): string {
  const cards = Array.from(
    { length: 8 },
    (_, i) =>
      `<li class="card"><a href="/course/${i}"><h3>Course number ${i} on applied topics</h3></a><span>12 weeks</span></li>`,
  ).join('');
  const menu = ['Home', 'About', 'Blog', 'Jobs', 'Help'].map((w) => `<li class="item"><a href="/${w}">${w}</a></li>`);
  return `<html><head><title>Courses</title>${head}</head><body><div class="page">
    <p>${prose(120, 'intro')}.</p><ul class="cards">${cards}</ul>
    <div class="links"><ul class="menu">${menu.join('')}</ul></div></div></body></html>`;
}

test('a page that is not an article keeps its grid of cards, not a list of bare links', () => {
  const text = extractHtml(listing(''), 'https://school.example/courses').text;
  for (let i = 0; i < 8; i++) assert.ok(text.includes(`Course number ${i}`), text);
  assert.ok(!text.includes('Jobs'), text);
});
