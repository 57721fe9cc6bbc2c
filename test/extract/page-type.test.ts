// The page-type profiles (page-type.ts): a page that declares a discussion keeps its comment-named posts, a page that
// does not call itself an article keeps its grids of cards, an article keeps dropping both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { detectPageType } from '../../src/extract/page-type/page-type.js';
import { parseDocument } from '../../src/extract/parse/parse.js';

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
  assert.equal(typeOf('', '', ['{"@type":"Product"}', '{"@type":"FAQPage"}']), 'product');
  assert.equal(typeOf('<meta property="og:type" content="product">'), 'product');
  const item = '<div itemscope itemtype="https://schema.org/Product">x</div>';
  assert.equal(typeOf('', item), 'product');
  // A catalogue: many microdata products, or its products inside an ItemList.
  assert.equal(typeOf('', item + item), 'other');
  assert.equal(typeOf('', '', ['{"@type":"ItemList","itemListElement":[{"@type":"Product"}]}']), 'other');
});

test('a page that declares nothing but has one buy box (or its sticky copy) is a product; a catalogue is not', () => {
  const typeOf = (body: string) => detectPageType(parseDocument(`<html><head></head><body>${body}</body></html>`), []);
  const buy = '<form action="/cart"><button type="submit" id="add-to-cart-button">Add to Cart</button></form>';
  assert.equal(typeOf(`<h1>Kettle</h1><span>$20</span>${buy}`), 'product');
  assert.equal(typeOf(`<h1>Kettle</h1>${buy}<div class="sticky"><button>Add to bag</button></div>`), 'product');
  assert.equal(typeOf('<input type="submit" name="add_to_basket" value="Buy">'), 'product');
  // A catalogue's cards each have their own button; a link that says so is not a buy box.
  assert.equal(
    typeOf(Array.from({ length: 6 }, (_, i) => `<li>Item ${i} <button>Add to cart</button></li>`).join('')),
    'other',
  );
  assert.equal(typeOf('<a href="/help">How to add to cart</a>'), 'other');
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

test("a page that is its comments (a link aggregator's story) is a thread, whatever it declares", () => {
  const comments = NAMES.map(
    (name) =>
      `<li class="comments_subtree"><div class="comment"><a href="/~${name}">${name}</a>` +
      `<div class="comment_text"><p>Reply by ${name}: ${prose(40, name)}.</p></div></div></li>`,
  ).join('');
  const page = (story: string) =>
    `<html><head><title>Story</title><meta property="og:type" content="article"></head><body>
    <nav><a href="/">Home</a> <a href="/recent">Recent</a></nav><div class="story"><h1><a href="https://blog.example/goals">
    Project goals for 2024</a></h1>${story}</div><ol class="comments">${comments}</ol></body></html>`;
  const link = extractHtml(page('<span>via alice, 1 year ago</span>'), 'https://links.example/s/1').text;
  for (const name of NAMES) assert.ok(link.includes(`Reply by ${name}`), link);
  // A story of its own is an article, and its comment section goes.
  const story = extractHtml(page(`<p>${prose(150, 'story')}.</p>`), 'https://news.example/s/2').text;
  assert.ok(story.includes('story0'), story);
  assert.ok(!story.includes('Reply by alice'), story);
  // A short page with an empty comment box is what it declares.
  const empty = '<p>Opening hours: 9 to 5, Monday to Friday.</p><div class="comments">No comments yet.</div>';
  assert.equal(detectPageType(parseDocument(`<html><body>${empty}</body></html>`), []), 'other');
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

function programs(head: string): string {
  const cards = Array.from(
    { length: 10 },
    (_, i) =>
      `<div class="result"><h3><a href="/course/${i}">Certificate in applied topic number ${i} for engineers</a></h3><span>6 weeks</span></div>`,
  ).join('');
  return `<html><head><title>Programs</title>${head}</head><body><header><a href="/">Home</a></header>
    <div class="intro"><h1>Certificate programs</h1><p>Award-winning faculty and a global reputation. Our certificate
    programs combine research with insights from industry leaders, delivered online or live, to help you expand your
    capabilities.</p></div><div class="listing"><div class="results">${cards}</div></div></body></html>`;
}

test('a short pick gives way to the whole page when that says twice as much, unless the page is an article', () => {
  // Readability keeps the intro and cleans the link-dense cards away; the page minus boilerplate holds both.
  const listing = extractHtml(programs(''), 'https://school.example/programs').text;
  assert.ok(listing.includes('Award-winning faculty'), listing);
  for (let i = 0; i < 10; i++) assert.ok(listing.includes(`applied topic number ${i} `), listing);
  const article = extractHtml(programs('<meta property="og:type" content="article">'), 'https://news.example/a').text;
  assert.ok(article.includes('Award-winning faculty'), article);
  assert.ok(!article.includes('applied topic number 0'), article);
});

test('a thread whose longest post Readability keeps alone is read whole, without its pager; an article keeps its story alone', () => {
  const replies = ['bob', 'carol', 'dave', 'erin', 'frank']
    .map((name) => `<td class="reply"><p>Reply by ${name}: ${prose(60, name)}.</p></td>`)
    .join('</tr><tr>');
  const page = (declaration: string) =>
    `<html><head><title>Thread</title>${declaration}</head><body><div class="topic"><h1>Which telescope?</h1>
    <p>${prose(170, 'question')}.</p></div><table class="replies"><tr>${replies}</tr></table>
    <div class="pagination">Page 1 of 3, next page</div></body></html>`;
  const forum = extractHtml(
    page('<script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>'),
    'https://forum.example/t/2',
  ).text;
  assert.ok(forum.includes('question0') && forum.includes('Reply by frank'), forum);
  assert.ok(!forum.includes('Page 1 of 3'), forum);
  const article = extractHtml(page('<meta property="og:type" content="article">'), 'https://news.example/2').text;
  assert.ok(article.includes('question0') && !article.includes('Reply by'), article);
});

test('a thread that declares nothing is a forum by its shape: five sibling posts with author, date and a body', () => {
  const post = (name: string, words: number) =>
    `<div class="post"><a href="/members/${name}.12/">${name}</a><time>Mar 3, 2024</time><p>${prose(words, name)}.</p></div>`;
  const page = (posts: string) =>
    detectPageType(parseDocument(`<html><body><nav>Home</nav><div class="posts">${posts}</div></body></html>`), []);
  /** `count` posts of `words` words each. */
  const posts = (count: number, words: number) =>
    NAMES.slice(0, count)
      .map((name) => post(name, words))
      .join('');
  assert.equal(page(posts(5, 40)), 'forum');
  // Four posts, or teasers with a summary line, are not a thread.
  assert.equal(page(posts(4, 40)), 'other');
  assert.equal(page(posts(5, 5)), 'other');
  // A listing that ends with five comments: the posts hold under half of the page's text.
  const comments = posts(5, 40);
  assert.equal(page(`<p>${prose(2000, 'book')}</p></div><div class="comments">${comments}`), 'other');
});
