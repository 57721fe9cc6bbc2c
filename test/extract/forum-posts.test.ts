// Forum posts lose what every post repeats (issue 15, forums third pass): the poster's signature, a question's and
// its answers' comment threads (asides, where a forum's comment-named posts stay), and bare post counters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBoilerplate } from '../../src/extract/content/boilerplate.js';
import { extractHtml } from '../../src/extract/index.js';
import { setPageType } from '../../src/extract/page-type/page-type.js';
import { parseDocument } from '../../src/extract/parse/parse.js';

const prose = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 7}`).join(' ');
const NAMES = ['alice', 'bob', 'carol', 'dave'];
const FORUM = '<script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>';

function thread(post: (name: string, i: number) => string, head = FORUM): string {
  return `<html><head><title>Thread</title>${head}</head><body><nav><a href="/">Home</a></nav>
    <div class="thread"><h1>Which telescope first?</h1>${NAMES.map(post).join('')}</div></body></html>`;
}

test("a poster's signature goes from each post, whatever the engine calls it; the post stays", () => {
  const classes = ['signature', 'post-signature', 'postsignature', 'signaturecontainer'];
  const html = thread(
    (name, i) => `<div class="post"><span class="author">${name}</span><p>Reply by ${name}: ${prose(60, name)}.</p>
      <div class="${classes[i]}">Proud owner of a ${name} telescope since 1999</div></div>`,
  );
  const { text } = extractHtml(html, 'https://forum.example/t/1');
  for (const name of NAMES) assert.ok(text.includes(`Reply by ${name}`), text);
  assert.ok(!text.includes('Proud owner'), text);
});

test('outside a forum, a signature is content: a heading anchor, an API function signature', () => {
  const html = `<html><head><title>API</title></head><body><main><h1>Keys</h1><p>${prose(120, 'intro')}.</p>
    <h2 id="signature">Signature</h2><div class="tsd-signature">rotateKey(id: string, ttl?: number): Key</div>
    <p>${prose(80, 'sig')}.</p></main></body></html>`;
  const { text } = extractHtml(html, 'https://docs.example/keys');
  assert.ok(text.includes('Signature'), text);
  assert.ok(text.includes('rotateKey(id: string'), text);
});

test("a question's and its answers' comments go; a forum's comment-named posts stay", () => {
  const qa = `<html><head><title>Q</title></head><body><div itemscope itemtype="https://schema.org/QAPage">
    <div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"><h1>How to focus the pane?</h1>
      <p>${prose(80, 'question')}.</p><ul class="comments"><li class="comment">Did you try F6 first</li></ul>
      ${NAMES.map(
        (name) => `<div class="answer" itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer">
          <p>Answer by ${name}: ${prose(60, name)}.</p>
          <ul class="comments"><li class="comment">Thanks ${name}, that worked</li></ul></div>`,
      ).join('')}</div></div></body></html>`;
  const { text } = extractHtml(qa, 'https://qa.example/q/1');
  for (const name of NAMES) assert.ok(text.includes(`Answer by ${name}`), text);
  assert.ok(!text.includes('Did you try'), text);
  assert.ok(!text.includes('that worked'), text);
  const forum = extractHtml(
    thread((name) => `<div class="comment"><p>Reply by ${name}: ${prose(60, name)}.</p></div>`),
    'https://forum.example/t/2',
  ).text;
  for (const name of NAMES) assert.ok(forum.includes(`Reply by ${name}`), forum);
});

test("a thread's bare post numbers and vote counts go; an article's figures and a thread's tables keep theirs", () => {
  const post = (name: string, i: number) => `<div class="post"><span class="post-number">#${i + 1}</span>
    <div class="votes">${(i + 3) * 7}</div><div>${i + 1}</div><p>Reply by ${name}: ${prose(60, name)}.</p>
    <table><tr><th>Aperture</th></tr><tr><td>${(i + 1) * 1000}</td></tr></table></div>`;
  const forum = extractHtml(thread(post), 'https://forum.example/t/3').text;
  assert.ok(!/^(?:21|28|35|42)$/m.test(forum), forum);
  assert.ok(forum.includes('4000'), forum);
  const article = extractHtml(
    thread(post, '<meta property="og:type" content="article">'),
    'https://news.example/a',
  ).text;
  assert.ok(/^28$/m.test(article), article);
});

test("a reply's marked quote of an earlier post goes; a bare pull quote and a post that is a blockquote stay", () => {
  const quoting = thread(
    (name, i) => `<div class="post"><span class="author">${name}</span><div class="body">
      ${i > 0 ? `<blockquote class="quote"><div>${NAMES[i - 1]} said:</div>Quoted words from ${NAMES[i - 1]}</blockquote>` : ''}
      <p>Reply by ${name}: ${prose(60, name)}.</p></div></div>`,
  );
  const text = extractHtml(quoting, 'https://forum.example/t/4').text;
  for (const name of NAMES) assert.ok(text.includes(`Reply by ${name}`), text);
  assert.ok(!text.includes('Quoted words'), text);
  const cited = extractHtml(
    quoting.replace(/ class="quote"><div>(\w+) said:<\/div>/g, '><cite>$1</cite>'),
    'https://f.example/t/6',
  );
  assert.ok(!cited.text.includes('Quoted words'), cited.text);
  const pulled = extractHtml(quoting.replace(/ class="quote"/g, ''), 'https://forum.example/t/7').text;
  assert.ok(pulled.includes('Quoted words'), pulled);
  const whole = thread(
    (name) =>
      `<div class="post"><span>${name}</span><blockquote>Reply by ${name}: ${prose(60, name)}.</blockquote></div>`,
  );
  const posts = extractHtml(whole, 'https://forum.example/t/5').text;
  for (const name of NAMES) assert.ok(posts.includes(`Reply by ${name}`), posts);
});

test("a poster's stat lines and profile fields go from each post; a post that opens with a label stays", () => {
  const post = (name: string, i: number) => `<div class="post"><dl class="postprofile"><dt>${name}</dt>
    <dd><strong>Posts:</strong> ${(i + 2) * 311}</dd><dd><strong>Joined:</strong> Sun Dec 17, 2023 11:18 am</dd>
    <dd><strong>Primary OS:</strong> Linux other</dd></dl>
    <dl class="pairs"><dt>Messages</dt><dd>1,${i}34</dd></dl><span>${i + 1},109 posts ·</span>
    <dl class="pairs"><dt><span title="Joined"><i class="fa-user"></i></span></dt><dd>Jun 15, 2024</dd></dl>
    <p>Reply by ${name}: ${prose(60, name)}.</p>
    ${i === 0 ? '<p>Location: the dark site north of town, where the sky is best and the mount stays steady all night.</p>' : ''}</div>`;
  const { text } = extractHtml(thread(post), 'https://forum.example/t/5');
  for (const name of NAMES) assert.ok(text.includes(`Reply by ${name}`), text);
  for (const stat of ['Posts:', 'Joined', 'Primary OS', 'Messages', '109 posts', 'Jun 15']) {
    assert.ok(!text.includes(stat), text);
  }
  assert.ok(text.includes('Location: the dark site'), text);
});

test('a form with no field to fill is the post it wraps on a thread; a search box is not', () => {
  const post = (name: string) => `<div class="comment"><p class="tagline">${name}</p>
    <form class="usertext"><input type="hidden" name="id" value="${name}"><div class="md">
    <p>Reply by ${name}: ${prose(20, name)}.</p></div></form></div>`;
  const html = thread(post).replace('</body>', '<form><input name="q"><p>Search the board</p></form></body>');
  const { text } = extractHtml(html, 'https://forum.example/t/6');
  for (const name of NAMES) assert.ok(text.includes(`Reply by ${name}`), text);
  assert.ok(!text.includes('Search the board'), text);
  // The page minus boilerplate (the route a thread takes when Readability keeps one post) keeps them too.
  const doc = parseDocument(html);
  setPageType(doc, 'forum');
  const forms = [...doc.querySelectorAll('form')];
  const [postForm, searchForm] = [forms[0], forms.at(-1)];
  assert.equal(isBoilerplate(postForm!), false);
  assert.equal(isBoilerplate(searchForm!), true);
  setPageType(doc, 'article');
  assert.equal(isBoilerplate(postForm!), true);
});

test("a thread's hidden delimiters and its sign-in prompt go", () => {
  const post = (name: string) => `<div class="post"><p><span class="d-none">$\\begingroup$</span>
    Reply by ${name}: ${prose(60, name)}.<span class="d-none">$\\endgroup$</span></p></div>`;
  const html = thread(post).replace(
    '</div></body>',
    `<div class="guest"><h2>Create an account or sign in to comment</h2><p>You need to be a member.</p></div>
    <div><h3>Featured Topics</h3><ul><li><a href="/t/9">Another thread about mounts</a></li></ul></div>
    <div><h3>Top Posters In This Topic</h3><p>zedposter wrote the most replies in this thread this week</p></div></div></body>`,
  );
  const { text } = extractHtml(html, 'https://forum.example/t/7');
  for (const name of NAMES) assert.ok(text.includes(`Reply by ${name}`), text);
  for (const gone of ['begingroup', 'sign in to comment', 'need to be a member', 'Another thread', 'zedposter'])
    assert.ok(!text.includes(gone), text);
});
