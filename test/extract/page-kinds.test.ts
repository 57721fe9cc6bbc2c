// Pages that are not articles keep their point: documentation, a product page, a forum thread, a section front and
// search results each keep their main content (test/fixtures/page-kinds/) and lose the site's chrome.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { extractHtml } from '../../src/extract/index.js';
import { assertContains } from './pages.js';

function extractKind(name: string) {
  const html = readFileSync(new URL(`../fixtures/page-kinds/${name}.html`, import.meta.url), 'utf8');
  return extractHtml(html, `https://site.example/${name}`);
}

test('documentation: every section, its code with the language and its table; no sidebar, breadcrumbs or pager', () => {
  const { markdown, title } = extractKind('docs');
  assert.equal(title, 'Configuration');
  assert.deepEqual(markdown.match(/^#+ .*$/gm), [
    '# Configuration',
    '## The settings file',
    '## Keys',
    '## Environment variables',
  ]);
  assertContains(
    markdown,
    [
      '```toml\n[server]\nport = 8080\nworkers = 4\n```',
      '| port | 8080 | TCP port to listen on |',
      'Environment variables win over the file.',
    ],
    ['Quick start', 'Changelog', 'Search the docs', '›', 'Plugins »', 'MIT'],
  );
});

test('product page: name, price, stock, features, description and specifications; no cart form or cross-sells', () => {
  const { markdown, description } = extractKind('product');
  assert.equal(description, 'Waterproof leather hiking boot with a Vibram sole.');
  assertContains(
    markdown,
    [
      '# Trailrunner 2 hiking boot',
      '€149.00',
      'In stock: ships in 2 days',
      '- Vibram Megagrip sole',
      'keeps water out',
      'Vibram Megagrip',
      '10 mm',
    ],
    ['cookies', 'Add to cart', 'Customers also bought', 'Merino hiking socks', 'Imprint', 'Cart (0)'],
  );
});

test('forum thread: every post, each with who wrote it and when; no suggested topics', () => {
  const { markdown } = extractKind('forum');
  const posts = [
    'maria\\_bakes',
    'Is it dead?',
    'oldbaker',
    'Not dead, just hungry',
    'lin',
    'Warmer spot',
    'Mar 6',
    'smells of yoghurt',
  ];
  let from = 0;
  for (const part of posts) {
    const at = markdown.indexOf(part, from);
    assert.ok(at >= from, `${part} missing or out of order\n${markdown}`);
    from = at;
  }
  assertContains(markdown, [], ['Suggested topics', 'Rye starter', 'Log in', 'Terms of service']);
});

test('section front: every story title (linked) with its summary; no pager or most-read box', () => {
  const { markdown } = extractKind('listing');
  for (const [slug, headline] of [
    ['comet', 'A comet returns after 80,000 years'],
    ['bees', 'Bees can count to four'],
    ['ice', 'Antarctic ice reaches a record low'],
    ['fusion', 'Fusion reactor runs for six minutes'],
  ]) {
    assert.ok(markdown.includes(`[${headline}](https://site.example/science/${slug})`), headline);
  }
  assertContains(
    markdown,
    ['visible to the naked eye', 'previous record for a tokamak'],
    ['Next page', 'Most read', 'Storm closes', 'Copyright'],
  );
});

test('search results: every result with its link and snippet; no search box, tabs or pager', () => {
  const { markdown } = extractKind('search-results');
  assertContains(
    markdown,
    [
      '[Late blight on tomatoes: how to spot it](https://garden.example/blight)',
      '[Tomato diseases - University extension](https://extension.example/tomato-diseases)',
      '[Blight-resistant tomato varieties](https://seeds.example/resistant)',
      'remove affected plants',
      'septoria leaf spot',
      'Mountain Magic',
    ],
    ['Images', 'Privacy', 'Next'],
  );
});
