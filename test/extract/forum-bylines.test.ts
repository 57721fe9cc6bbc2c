// Each post of a thread keeps who wrote it and when (issue 15, forums fifth pass), loses its number and tallies, and
// the reply box under the thread goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';

const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');
const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin'];
const TOPICS = ['lens', 'mount', 'sky', 'star', 'moon'];
const FORUM = '<script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>';

/** A thread whose bylines are links (the name to the member's page, the date to the post), as XenForo renders them. */
function thread(extra = '', wrap = (posts: string) => posts): string {
  const posts = NAMES.map(
    (name, i) => `<article class="message"><div class="message-user"><a href="/members/${name}.${i}/"><img
      src="/a/${i}.jpg" alt=""></a><h4 class="message-name"><a href="/members/${name}.${i}/">${name}</a></h4></div>
      <div class="message-main"><ul class="message-attribution"><li><a href="/t/1/post-${i}"><time
      datetime="2024-07-1${i}">Jul 1${i}, 2024</time></a></li><li><a href="/t/1/post-${i}">#${i + 1}</a></li></ul>
      <div class="message-body"><p>Reply on ${TOPICS[i]}: ${prose(50 + 10 * i, TOPICS[i]!)}.</p></div>
      <ul class="message-actions"><li><span>${i + 2} Likes</span></li></ul></div></article>`,
  );
  return `<html><head><title>Thread</title>${FORUM}</head><body><nav><a href="/">Home</a></nav>
    <div class="thread"><h1>Which telescope first?</h1>${wrap(posts.join(''))}${extra}</div></body></html>`;
}

test('each post keeps its author and date; its number and like tally go', () => {
  const { text } = extractHtml(thread(), 'https://forum.example/t/1');
  for (const [i, name] of NAMES.entries()) {
    assert.ok(text.includes(`Reply on ${TOPICS[i]}`), text);
    // The first post's byline opens the thread's text: it goes with the short lines at the edge of a long pick.
    if (i === 0) continue;
    assert.match(text, new RegExp(`^${name}$`, 'm'));
    assert.ok(text.includes(`Jul 1${i}, 2024`), text);
  }
  assert.ok(!/#\d|Likes/.test(text), text);
});

test('a reply box goes from a thread; a form around the posts (inline moderation) stays', () => {
  const replyBox = `<form action="/t/1/reply" method="post"><h2>Your Answer</h2><textarea name="body"></textarea>
    <div><h3>Post as a guest</h3><p>Required, but never shown; by posting you agree to the terms of service.</p>
    <input type="email" name="email"></div><p>Formatting help: ${prose(120, 'help')}.</p></form>`;
  const moderated = (posts: string) => `<form action="/inline-mod" method="post">${posts}
    <select name="action"><option>Delete</option></select></form>`;
  // The board's rules outside the thread: the moderation form holds less than half of the page's text.
  const rules = `<div class="rules"><p>Board rules: ${prose(500, 'rule')}.</p></div>`;
  const { text } = extractHtml(
    thread(replyBox, moderated).replace('</body>', `${rules}</body>`),
    'https://forum.example/t/2',
  );
  for (const topic of TOPICS) assert.ok(text.includes(`Reply on ${topic}`), text);
  assert.ok(!text.includes('Post as a guest'), text);
  assert.ok(!text.includes('Required, but never shown'), text);
  assert.ok(!text.includes('Formatting help'), text);
});

test('a popover (an app-install prompt) is hidden until opened: not content', () => {
  const popover = `<div popover id="install"><h3>To install this app on iOS</h3><ol><li>Tap the Share icon in Safari</li>
    <li>Scroll the menu and tap Add to Home Screen.</li></ol></div>`;
  const { text } = extractHtml(thread(popover), 'https://forum.example/t/3');
  for (const topic of TOPICS) assert.ok(text.includes(`Reply on ${topic}`), text);
  assert.ok(!text.includes('Add to Home Screen'), text);
});

test("a short reply that Readability's cleaning cut from its post comes back whole", () => {
  // Its date and its controls are links, more text than its words: Readability removes its body as a block of links.
  const short = `<article class="message"><div class="message-user"><h4 class="message-name"><a
    href="/members/frank.9/">frank</a></h4></div><div class="message-main"><ul class="message-attribution"><li><a
    href="/t/1/post-9"><time datetime="2024-07-19">Jul 19, 2024</time></a></li></ul>
    <div class="message-body"><p>Same here on Windows 11, sadly.</p></div><a href="/t/1/share/9">Share</a>
    <a href="/t/1/report/9">Report</a> <a href="/t/1/quote/9">Quote</a> <a href="/t/1/save/9">Bookmark</a></div></article>`;
  const { text } = extractHtml(thread(short), 'https://forum.example/t/4');
  for (const topic of TOPICS) assert.ok(text.includes(`Reply on ${topic}`), text);
  assert.ok(text.includes('Same here on Windows 11'), text);
});

test('a post that Readability dropped whole from among the posts it kept comes back in its place', () => {
  // phpBB's posts alternate their classes (bg1, bg2): Readability adds a sibling of the other class only when it scores
  // on its own, and an opening post of two links and a line does not.
  const post = (name: string, i: number, body: string) =>
    `<div class="post bg${i % 2}"><div class="inner"><dl class="postprofile"><dt><a href="/memberlist.php?u=${i}">${name}</a>
    </dt></dl><div class="postbody"><div><h3><a href="/viewtopic.php?p=${i}">Re: Version 7</a></h3><p class="author">by
    <a href="/memberlist.php?u=${i}">${name}</a> <time datetime="2024-07-1${i}">Jul 1${i}, 2024</time></p>
    <div class="content">${body}</div></div></div></div></div>`;
  const opening = post(
    'zed',
    1,
    'Download it <a href="/dl">here</a>.<br>Version seven is out, with a new network stack and a rewritten installer.' +
      '<br>See <a href="/log">here</a>.',
  );
  const replies = NAMES.map((name, i) =>
    post(
      name,
      i,
      i % 2 ? `Short reply by ${name}.` : `Reply on ${TOPICS[i]}, ${prose(40, name)}.<br>${prose(40, 'more')}.`,
    ),
  );
  const html = `<html><head><title>Thread</title>${FORUM}</head><body><nav><a href="/">Home</a></nav>
    <div id="page-body"><h2>Version 7 released</h2>${opening}${replies.join('')}</div></body></html>`;
  const { text } = extractHtml(html, 'https://forum.example/viewtopic.php?t=4');
  assert.ok(text.indexOf('Version seven is out') >= 0, text);
  assert.ok(text.indexOf('Version seven is out') < text.indexOf('Reply on lens'), text);
});
