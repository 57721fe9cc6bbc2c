// restyleMarkdown on tricky Markdown: code stays as written, link text and URLs of every shape, images of every kind,
// and the reference numbers and definitions that parts of a page are given.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  restyleMarkdown,
  styleMarkdown,
  withDefinitions,
  type MarkdownStyle,
} from '../../src/extract/formats/link-style.js';

const REFERENCE: MarkdownStyle = { links: 'reference', images: 'keep' };
const NONE: MarkdownStyle = { links: 'none', images: 'keep' };
const NO_IMAGES: MarkdownStyle = { links: 'inline', images: 'none' };

describe('code stays as written', () => {
  const md =
    'Para [a](http://a) and `[s](http://s)`.\n\n    [b](http://b)\n\n- item\n\n      [c](http://c)\n\n~~~\n[d](http://d) ![e](http://e)\n~~~';

  test('links none', () => {
    assert.equal(restyleMarkdown(md, NONE), md.replace('[a](http://a)', 'a'));
  });

  test('links reference and images none', () => {
    assert.equal(
      restyleMarkdown(md, { links: 'reference', images: 'none' }),
      `${md.replace('[a](http://a)', '[a][1]')}\n\n[1]: http://a`,
    );
  });

  test('the default style returns the input itself', () => {
    assert.equal(restyleMarkdown(md, { links: 'inline', images: 'keep' }), md);
  });
});

describe('links reference', () => {
  test('one number per distinct URL in order of first appearance; titles go', () => {
    const md = '[a](http://1) [b](http://2) [c](http://1 "Title") [d](http://3)';
    assert.equal(
      restyleMarkdown(md, REFERENCE),
      '[a][1] [b][2] [c][1] [d][3]\n\n[1]: http://1\n[2]: http://2\n[3]: http://3',
    );
  });

  test('brackets, escapes and code in link text; parentheses and spaces in URLs', () => {
    const md = '[a [b] c](http://x/(y)) [d \\] e](http://x/a\\)) [`co]de` f](<http://x/a b>)';
    assert.equal(
      restyleMarkdown(md, REFERENCE),
      '[a [b] c][1] [d \\] e][2] [`co]de` f][3]\n\n[1]: http://x/(y)\n[2]: <http://x/a)>\n[3]: <http://x/a b>',
    );
  });

  test('autolinks stay as written: their text is the URL', () => {
    const md = '<https://x.org> https://y.org www.z.org <me@x.org>';
    assert.equal(restyleMarkdown(md, REFERENCE), md);
  });

  test("the publisher's reference links are renumbered and their definitions replaced", () => {
    const md = 'See [text][id] and [1] and [x][1].\n\n[id]: http://id "T"\n[1]: http://other\n\nEnd [e](http://e).';
    assert.equal(
      restyleMarkdown(md, REFERENCE),
      'See [text][1] and [1][2] and [x][2].\n\nEnd [e][3].\n\n[1]: http://id\n[2]: http://other\n[3]: http://e',
    );
  });

  test('an image written as a reference is written inline once the definitions are gone', () => {
    const md = '![alt][img] and [![logo][img]](http://l)\n\n[img]: http://i.png "Pic"';
    assert.equal(
      restyleMarkdown(md, REFERENCE),
      '![alt](http://i.png "Pic") and [![logo](http://i.png "Pic")][1]\n\n[1]: http://l',
    );
  });

  test('links over several lines in quotes and list items keep their markers', () => {
    const md = '> a [b\n> c](http://q) d\n\n- x [y\n  z](http://r)';
    assert.equal(
      restyleMarkdown(md, REFERENCE),
      '> a [b\n> c][1] d\n\n- x [y\n  z][2]\n\n[1]: http://q\n[2]: http://r',
    );
  });

  test('a link with no text says nothing and goes', () => {
    assert.equal(restyleMarkdown('A [](http://e) b [x](http://x)', REFERENCE), 'A b [x][1]\n\n[1]: http://x');
  });

  test('characters of the private-use area in the page are kept', () => {
    assert.equal(restyleMarkdown('\uE000 [a](http://a) \uE001', REFERENCE), '\uE000 [a][1] \uE001\n\n[1]: http://a');
  });
});

describe('links none', () => {
  test('links become their text, Markdown inside kept', () => {
    const md = '[**bold** and `co]de`](http://x), [a \\] b](http://y) and [](http://empty).';
    assert.equal(restyleMarkdown(md, NONE), '**bold** and `co]de`, a \\] b and.');
  });

  test('autolinks become their text; definitions go', () => {
    assert.equal(
      restyleMarkdown('<https://x.org> and [t][id].\n\n[id]: http://id\n\nEnd.', NONE),
      'https://x.org and t.\n\nEnd.',
    );
  });

  test('a link in a table cell with an escaped pipe', () => {
    const md = '| a | b |\n|---|---|\n| [x \\| y](http://x) | [z](http://z) |';
    assert.equal(restyleMarkdown(md, NONE), '| a | b |\n|---|---|\n| x \\| y | z |');
  });

  test('HTML is left as it is', () => {
    const md = 'A <a href="http://h">h</a> and [b](http://b)\n\n<div><a href="http://d">d</a></div>';
    assert.equal(restyleMarkdown(md, NONE), md.replace('[b](http://b)', 'b'));
  });
});

describe('images none', () => {
  test('image paragraphs, items and headings go without leaving blank runs or empty items', () => {
    const md = [
      '![first](http://f)',
      'Text ![m](http://m) more ![e](http://e).',
      '## ![icon](http://i) Heading',
      '## ![only an icon](http://i)',
      '- one\n- ![only](http://o)\n- [![i](http://s) Download](http://h)\n- [![logo](http://s)](http://home)',
      '> ![quoted](http://q)',
      '| a | b |\n|---|---|\n| ![c](http://c) | d |',
      '1. ![x](http://x)\n2. two',
      '![last](http://l)',
    ].join('\n\n');
    assert.equal(
      restyleMarkdown(md, NO_IMAGES),
      'Text more.\n\n## Heading\n\n- one\n- [Download](http://h)\n\n| a | b |\n|---|---|\n| | d |\n\n2. two',
    );
  });

  test('with links none, a linked image goes whole', () => {
    assert.equal(
      restyleMarkdown('See [![logo](http://s)](http://home) here.', { links: 'none', images: 'none' }),
      'See here.',
    );
  });
});

describe('definitions for a part', () => {
  const md = 'Intro [a](http://a).\n\nMiddle [b](http://b) and [a](http://a) again.\n\nEnd [c](http://c).';

  test('the labels are found where they are in the body', () => {
    const styled = styleMarkdown(md, REFERENCE);
    assert.equal(styled.body, 'Intro [a][1].\n\nMiddle [b][2] and [a][1] again.\n\nEnd [c][3].');
    assert.deepEqual(styled.urls, ['http://a', 'http://b', 'http://c']);
    assert.deepEqual(
      styled.uses.map((use) => styled.body.slice(use.start, use.end)),
      ['[1]', '[2]', '[1]', '[3]'],
    );
  });

  test('a part lists only the references it holds, in number order', () => {
    const styled = styleMarkdown(md, REFERENCE);
    const start = styled.body.indexOf('Middle');
    const end = styled.body.indexOf('\n\nEnd');
    const part = styled.body.slice(start, end);
    assert.equal(withDefinitions(part, styled, start, end), `${part}\n\n[1]: http://a\n[2]: http://b`);
    assert.equal(withDefinitions('Intro', styled, 0, 5), 'Intro', 'a label cut off is not listed');
  });
});
