// markdownToDocument: typed blocks and links for format=json.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdownToDocument } from '../../src/extract/index.js';

test('every block type, with table rows, code language and nested list items', () => {
  const markdown = [
    '# Title',
    'A paragraph with [a link](https://a.example/) and **bold**.',
    '- one\n  - one.a\n  - one.b\n- two',
    '3. third\n4. fourth',
    '| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bob | [42](https://b.example/) |',
    '```python\nprint("hi")\n```',
    '```\nplain\n```',
    '> Quoted **text**\n>\n> second',
    '![A photo](https://c.example/p.jpg)',
    '---',
    '## Sub <sup>2</sup>',
  ].join('\n\n');
  const { blocks, links } = markdownToDocument(markdown);
  assert.deepEqual(blocks, [
    { type: 'heading', level: 1, text: 'Title' },
    { type: 'paragraph', text: 'A paragraph with a link and bold.' },
    {
      type: 'list',
      ordered: false,
      items: [
        { text: 'one', children: [{ type: 'list', ordered: false, items: [{ text: 'one.a' }, { text: 'one.b' }] }] },
        { text: 'two' },
      ],
    },
    { type: 'list', ordered: true, start: 3, items: [{ text: 'third' }, { text: 'fourth' }] },
    {
      type: 'table',
      header: ['Name', 'Age'],
      rows: [
        ['Ann', '31'],
        ['Bob', '42'],
      ],
    },
    { type: 'code', language: 'python', code: 'print("hi")' },
    { type: 'code', language: null, code: 'plain' },
    { type: 'blockquote', text: 'Quoted text\n\nsecond' },
    { type: 'image', alt: 'A photo', url: 'https://c.example/p.jpg' },
    { type: 'thematic_break' },
    { type: 'heading', level: 2, text: 'Sub 2' },
  ]);
  assert.deepEqual(links, [
    { text: 'a link', url: 'https://a.example/' },
    { text: '42', url: 'https://b.example/' },
  ]);
});

test('a trimmed part (open code fence, cut list) still converts', () => {
  const { blocks } = markdownToDocument('- item one\n- item tw\n\n```js\nconst a = 1;');
  assert.deepEqual(blocks, [
    { type: 'list', ordered: false, items: [{ text: 'item one' }, { text: 'item tw' }] },
    { type: 'code', language: 'js', code: 'const a = 1;' },
  ]);
});

test('links are listed once each, images in paragraphs become image blocks after the text', () => {
  const { blocks, links } = markdownToDocument(
    'See [docs](https://d.example/) and [docs](https://d.example/) ![icon](https://d.example/i.png) here.\n\n[![logo](https://d.example/l.png)](https://d.example/home)',
  );
  assert.deepEqual(blocks, [
    { type: 'paragraph', text: 'See docs and docs  here.' },
    { type: 'image', alt: 'icon', url: 'https://d.example/i.png' },
    { type: 'image', alt: 'logo', url: 'https://d.example/l.png' },
  ]);
  assert.deepEqual(links, [
    { text: 'docs', url: 'https://d.example/' },
    { text: 'logo', url: 'https://d.example/home' },
  ]);
});
