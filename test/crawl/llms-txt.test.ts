// llms.txt's Markdown links: resolved against the file's URL, each once with its first title, images and other
// schemes left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linksFromLlmsTxt } from '../../src/crawl/llms-txt.js';

const LLMS_TXT = `# Example Docs

> Example is a library for examples.

## Docs

- [Quick start](https://example.com/docs/quickstart/): install and first steps
- [API reference](/docs/api "The whole API")
- [Guides]( guides/intro#setup )
- [Spaces allowed](<docs/a page.md>)
- [](https://example.com/untitled)
- [Quick start again](https://example.com/docs/quickstart)

## Optional

- ![Logo](https://example.com/logo.png)
- [Write to us](mailto:docs@example.com)
- [Changelog](https://example.com/changelog?utm_source=llms)
`;

test('the Markdown links of an llms.txt, resolved and normalised, each once', () => {
  assert.deepEqual(linksFromLlmsTxt(LLMS_TXT, 'https://example.com/llms.txt'), [
    { url: 'https://example.com/docs/quickstart', title: 'Quick start' },
    { url: 'https://example.com/docs/api', title: 'API reference' },
    { url: 'https://example.com/guides/intro', title: 'Guides' },
    { url: 'https://example.com/docs/a%20page.md', title: 'Spaces allowed' },
    { url: 'https://example.com/untitled' },
    { url: 'https://example.com/changelog', title: 'Changelog' },
  ]);
});

test('a file without links gives none', () => {
  assert.deepEqual(linksFromLlmsTxt('# Title\n\nJust text, and [brackets] (not a link).', 'https://e.com/'), []);
});
