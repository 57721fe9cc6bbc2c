// The Markdown that extractHtml produces: GFM tables, fenced code with its language, nested lists, blockquotes,
// absolute URLs, no data: URIs, and the whitespace guarantees (one blank line at most, no U+FEFF, no trailing spaces).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHTML } from 'linkedom';
import { cleanContent } from '../../src/extract/clean/clean.js';
import { extractHtml } from '../../src/extract/index.js';
import { convertToMarkdown } from '../../src/extract/markdown/markdown.js';
import { articlePage, PAGE_URL, paragraph } from './pages.js';

/** The Markdown of an article made of some prose and `html`, without the title and prose around it. */
function convert(html: string, head = ''): string {
  const { markdown } = extractHtml(articlePage(paragraph(1) + paragraph(2) + html + paragraph(3), head), PAGE_URL);
  const start = markdown.indexOf('repair.', markdown.indexOf('Paragraph 2')) + 'repair.'.length;
  const end = markdown.indexOf('Paragraph 3');
  assert.ok(start > 0 && end > start, markdown);
  return markdown.slice(start, end).trim();
}

test('a data table becomes a GFM table; the paragraphs of a cell are lines joined by <br>', () => {
  const table =
    '<table><thead><tr><th><b>Year</b></th><th>Cost</th></tr></thead><tbody><tr><td>2023</td><td>£1m</td></tr>' +
    '<tr><td>2024</td><td><p>£2m</p><p>estimated</p></td></tr></tbody></table>';
  assert.equal(convert(table), '| Year | Cost |\n| --- | --- |\n| 2023 | £1m |\n| 2024 | £2m<br>estimated |');
});

test('code blocks are fenced with their language, however the page spells it', () => {
  const code =
    '<pre><code class="language-python">def f():\n    return 1</code></pre>' +
    '<pre class="highlight ruby"><code>puts 1</code></pre>' +
    '<pre><code class="lang-js">let x = 1;</code></pre>' +
    '<div class="highlight-source-go"><pre>x := 1</pre></div>' +
    '<pre>no language</pre>';
  assert.equal(
    convert(code),
    '```python\ndef f():\n    return 1\n```\n\n```ruby\nputs 1\n```\n\n```js\nlet x = 1;\n```\n\n```go\nx := 1\n```\n\n```\nno language\n```',
  );
});

test('highlighted code loses its markup and line numbers, keeps its lines', () => {
  const code =
    '<div class="highlight"><table><tr><td class="linenos"><pre>1\n2</pre></td><td class="code">' +
    '<pre class="highlight python"><span class="k">import</span> <span class="n">os</span><br>print(os.name)</pre></td></tr></table></div>';
  assert.equal(convert(code), '```python\nimport os\nprint(os.name)\n```');
});

test('nested lists keep their nesting; ordered lists their start', () => {
  const lists =
    '<ul><li>Stone<ul><li>Granite</li><li>Limestone<ol><li>grey</li><li>white</li></ol></li></ul></li><li>Steel</li></ul>' +
    '<ol start="3"><li>third</li><li>fourth</li></ol>';
  assert.equal(
    convert(lists),
    '- Stone\n  - Granite\n  - Limestone\n    1. grey\n    2. white\n- Steel\n\n3. third\n4. fourth',
  );
});

test('blockquotes, emphasis and definition lists', () => {
  const html =
    '<blockquote><p>It is a <strong>fine</strong> bridge.</p><p>It will last.</p></blockquote>' +
    '<p>It was<strong><em> very </em></strong>expensive<b>,”</b> he said.</p><dl><dt>Span</dt><dd>40 metres</dd></dl>';
  assert.equal(
    convert(html),
    '> It is a **fine** bridge.\n>\n> It will last.\n\nIt was ***very*** expensive,” he said.\n\n**Span**\n: 40 metres',
  );
});

test('links and images are made absolute against the page URL (or its <base>)', () => {
  const html =
    '<p>See <a href="../report.pdf">the report</a>, <a href="#notes">the notes</a> and <img src="img/bridge.jpg" alt="The bridge"> <img data-src="/lazy.png" src="data:image/gif;base64,R0lGOD" alt="Lazy"></p>';
  assert.equal(
    convert(html),
    'See [the report](https://news.example/2024/report.pdf), [the notes](https://news.example/2024/05/bridge.html#notes) and ' +
      '![The bridge](https://news.example/2024/05/img/bridge.jpg) ![Lazy](https://news.example/lazy.png)',
  );
  assert.equal(
    convert('<p>Read <a href="doc.html">A document</a> first.</p>', '<base href="https://cdn.example/files/">'),
    'Read [A document](https://cdn.example/files/doc.html) first.',
  );
});

test('data: and javascript: URIs never reach the output', () => {
  const html =
    '<p>A <a href="data:text/html;base64,PHA+">data link</a> and a <a href="javascript:alert(1)">script link</a>.' +
    '<img src="data:image/png;base64,iVBORw0KGgo=" alt="pixel"></p><p><a href="data:text/plain,x"><img src="data:image/png;base64,AA"></a>Tail.</p>';
  const markdown = convert(html);
  assert.equal(markdown, 'A data link and a script link.\n\nTail.');
  const whole = extractHtml(articlePage(paragraph(1) + paragraph(2) + html), PAGE_URL);
  assert.ok(!/data:|javascript:/.test(whole.markdown + whole.text));
});

test('NUL characters from a page never reach the output', () => {
  const { markdown, text } = extractHtml(
    articlePage(paragraph(1) + '<p>Null\u0000 inside</p><pre><code>a\u0000b</code></pre>'),
    PAGE_URL,
  );
  for (const output of [markdown, text]) assert.ok(!output.includes('\u0000'), JSON.stringify(output.slice(-60)));
  assert.ok(markdown.includes('Null inside'));
});

test('at most one blank line in a row outside code (code keeps its own), no U+FEFF, no trailing whitespace', () => {
  const html =
    '<p>Before\uFEFF the gap.   </p><div><br><br><br></div><p></p><p> </p><div>\n\n\n</div><p>After the gap.</p>' +
    '<pre><code>line one\n\n\n\nline two   </code></pre>';
  const markdown = convert(html);
  assert.equal(markdown, 'Before the gap.\n\nAfter the gap.\n\n```\nline one\n\n\n\nline two\n```');
  const { markdown: whole, text } = extractHtml(`\uFEFF${articlePage(paragraph(1) + paragraph(2) + html)}`, PAGE_URL);
  assert.ok(whole.includes('line one\n\n\n\nline two'), whole);
  for (const output of [whole, text]) {
    assert.ok(!/\n{3}/.test(output.replace(/```[\s\S]*?```/g, '')));
    assert.ok(!output.includes('\uFEFF'));
    assert.ok(!/[ \t]$/m.test(output));
  }
});

test('a no-break space is a space outside code (each would cost a token of its own); fenced code keeps it', () => {
  const html = '<p>Price:&nbsp;10&nbsp;euros,\u00a0paid&nbsp;</p><p>&nbsp;</p><pre><code>a&nbsp;b</code></pre>';
  assert.equal(convert(html), 'Price: 10 euros, paid\n\n```\na\u00a0b\n```');
  const { text } = extractHtml(articlePage(paragraph(1) + html), PAGE_URL);
  // Plain text has no fences, so its code is tidied as prose is (trailing spaces too).
  assert.ok(text.endsWith('Price: 10 euros, paid\n\na b'), JSON.stringify(text.slice(-60)));
});

test('a space is one space: before a link after a no-break space, in a run of them, or alone in an element', () => {
  const html =
    '<p>Invest in&nbsp;<a href="/training">training</a>&nbsp;for staff,&nbsp; &nbsp;&nbsp;twice.</p>' +
    '<p><strong>Plan</strong><span> </span><em>first</em><span><span> </span></span>then<a href="/x"> </a>code.</p>';
  assert.equal(
    convert(html),
    'Invest in [training](https://news.example/training) for staff, twice.\n\n**Plan** *first* then code.',
  );
});

test("spans side by side are a card's fields and get a space, unless the second goes on a word in lower case", () => {
  const html =
    '<p><span>La Sportiva</span><span>Ultra Raptor</span> <span>2026</span><span>1h 54m</span><span>R</span></p>' +
    '<p>Meet at 455 N. <span>3</span><span>rd</span> St.; <span>Le</span><span>arn</span> more.</p>';
  assert.equal(convert(html), 'La Sportiva Ultra Raptor 2026 1h 54m R\n\nMeet at 455 N. 3rd St.; Learn more.');
});

test('a spacer paragraph of zero-width characters alone leaves no line; a joiner inside text stays', () => {
  const html = '<p>&zwj;</p><h2>Costs</h2><div>&#8203;&#8203;</div><p>Family: 👨\u200d👩\u200d👧.</p><p>&zwnj;</p>';
  assert.equal(convert(html), '## Costs\n\nFamily: 👨\u200d👩\u200d👧.');
});

test('headings drop line breaks and bold; a link around a heading moves inside it', () => {
  const html = '<h2><br><b>Costs</b> and<br>funding</h2><a href="/next"><h3>Next story</h3></a>';
  assert.equal(convert(html), '## Costs and funding\n\n### [Next story](https://news.example/next)');
});

/** The cleaning and conversion steps alone, on a fragment: what they give whatever main-content selection keeps. */
function convertFragment(html: string): string {
  const { document } = parseHTML(`<html><body><div id="root">${html}</div></body></html>`);
  const root = document.getElementById('root') as unknown as Element;
  cleanContent(root, PAGE_URL);
  return convertToMarkdown(root.innerHTML);
}

test('code keeps its text exactly: blank lines, trailing spaces and tabs, in a list item and a quote too', () => {
  const code = 'def first():\n    return 1   \n\n\n\tdef second():\n    return 2';
  assert.equal(
    convertFragment(`<p>Before.</p><pre>${code}</pre><p>After.</p>`),
    `Before.\n\n\`\`\`\n${code}\n\`\`\`\n\nAfter.`,
  );
  assert.equal(
    convertFragment('<ol><li><p>Run:</p><pre>a\n\n\nb</pre></li></ol><blockquote><pre>x\n\ny</pre></blockquote>'),
    '1. Run:\n\n   ```\n   a\n\n\n   b\n   ```\n\n> ```\n> x\n>\n> y\n> ```',
  );
});

test('a line break is a backslash hard break, not two trailing spaces that tidying would remove', () => {
  assert.equal(
    convertFragment('<p>Town Hall<br>High Street<br></p><ul><li>one<br>two</li></ul>'),
    'Town Hall\\\nHigh Street\n\n- one\\\n  two',
  );
});

test('a list item built of blocks (a card: heading, byline, date) keeps its parts apart, in Markdown and text', () => {
  const card = (n: number) =>
    `<li><div><h4><a href="/news/${n}"> Story ${n} </a></h4><div><div><span> <a href="/people/ada">Ada Byron</a> </span>` +
    `</div><span> on <span>Mar 0${n}</span> </span></div></div></li>`;
  const page = `<html><body><main><h1>News</h1><p>The latest.</p><ul>${card(1)}${card(2)}</ul></main></body></html>`;
  const { markdown, text } = extractHtml(page, PAGE_URL);
  assert.match(
    markdown,
    /- #### \[Story 1\]\(https:\/\/[^)]+\/news\/1\)\n\n {2}\[Ada Byron\]\([^)]+\)\n\n {2}on Mar 01\n\n- #### \[Story 2\]/,
  );
  assert.match(text, /^- Story 1\n {2}Ada Byron\n {2}on Mar 01\n- Story 2\n/m);
});

test('a card wrapped in a span inside its list item keeps its parts apart too', () => {
  const card = (n: number) =>
    `<li><span><div><a href="/book/${n}"><span><div>Book ${n}</div></span></a><div><span><div>Ada Byron</div>` +
    `</span></div><div><span>Hardcover</span></div><a href="/book/${n}"><div>$2${n}.40</div></a></div></span></li>`;
  const page = `<html><body><main><h1>Books</h1><p>Best sellers.</p><ol>${card(1)}${card(2)}</ol></main></body></html>`;
  const { text } = extractHtml(page, PAGE_URL);
  assert.match(text, /^1\. Book 1\n {2}Ada Byron\n {2}Hardcover\n {2}\$21\.40\n2\. Book 2\n/m);
});
