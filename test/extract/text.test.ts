// `text`: the same content as the Markdown, without any Markdown syntax.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentFromMarkdown, extractHtml, markdownToText } from '../../src/extract/index.js';
import { articlePage, PAGE_URL, paragraph } from './pages.js';

test('text of an extracted page carries no Markdown syntax', () => {
  const html =
    '<h2>The <em>new</em> bridge</h2><p>It cost <strong>£2m</strong>, says <a href="/report">the report</a>.</p>' +
    '<table><tr><th>Year</th><th>Cost</th></tr><tr><td>2024</td><td>£2m</td></tr></table>' +
    '<ul><li>Stone<ul><li>Granite</li></ul></li></ul><ol><li>First</li></ol>' +
    '<blockquote><p>A fine bridge.</p></blockquote><pre><code class="language-sh">echo "*not* emphasis"</code></pre>' +
    '<p><img src="/b.jpg" alt="Bridge photo">Caption_with_underscores and 5 * 3.</p>';
  const { text } = extractHtml(articlePage(paragraph(1) + paragraph(2) + html), PAGE_URL);
  const tail = text.slice(text.indexOf('The new bridge'));
  assert.equal(
    tail,
    'The new bridge\n\nIt cost £2m, says the report.\n\nYear\tCost\n2024\t£2m\n\n- Stone\n  - Granite\n\n1. First\n\n' +
      'A fine bridge.\n\necho "*not* emphasis"\n\nCaption_with_underscores and 5 * 3.',
  );
});

test('markdownToText strips headings, emphasis, links, images, escapes and entities', () => {
  const markdown =
    '# Title\n\nSome **bold**, _italic_, `code`, ~~gone~~ and [a link](https://x.example "t").\n\n' +
    '![alt text](https://x.example/i.png)\n\n> quoted\n> > nested\n\n---\n\n| a | b |\n| --- | --- |\n| 1 \\| 2 | 3 |\n\n' +
    'Escaped \\*stars\\* &amp; &#169; entities<br>line';
  assert.equal(
    markdownToText(markdown),
    'Title\n\nSome bold, italic, code, gone and a link.\n\nquoted\n\nnested\n\na\tb\n1 | 2\t3\n\nEscaped *stars* & © entities\nline',
  );
});

test('contentFromMarkdown takes the title from the first H1 and tidies the text', () => {
  const content = contentFromMarkdown(
    '\uFEFFIntro line\n\n# Real title\n\n\n\nBody with [link](https://x.example).   \n',
    'https://x.example/a.md',
  );
  assert.equal(content.title, 'Real title');
  assert.equal(content.markdown, 'Intro line\n\n# Real title\n\nBody with [link](https://x.example).');
  assert.equal(content.text, 'Intro line\n\nReal title\n\nBody with link.');
  assert.equal(contentFromMarkdown('plain text only', 'https://x.example/').title, null);
});

test('contentFromMarkdown makes links absolute, drops data: URIs and leaves code alone', () => {
  const markdown =
    'See [the guide](../guide.md "Guide"), [a call](javascript:go(1)) and ![logo](img/logo.png)' +
    '![pixel](data:image/png;base64,AA).\n\n```md\n[kept](relative.md)\n```';
  assert.equal(
    contentFromMarkdown(markdown, 'https://docs.example/v2/intro/index.md').markdown,
    'See [the guide](https://docs.example/v2/guide.md "Guide"), a call and ![logo](https://docs.example/v2/intro/img/logo.png).' +
      '\n\n```md\n[kept](relative.md)\n```',
  );
});

test('emphasis split inside a word (a drop cap) leaks no ** into text', () => {
  const article = `<p><strong>B</strong><strong>USINESS</strong> news first.</p>${paragraph(1)}${paragraph(2)}`;
  const { text } = extractHtml(articlePage(article), PAGE_URL);
  assert.ok(!text.includes('*'), text);
  assert.ok(text.includes('BUSINESS news first.'), text);
});
