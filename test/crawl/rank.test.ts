// POST /map's `search` order: BM25 over each link's path words and title; the obviously relevant link first, ties
// and links without a match in their original order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankLinks } from '../../src/crawl/rank.js';

const LINKS = [
  { url: 'https://example.com/', title: 'Example: home' },
  { url: 'https://example.com/blog/2024/launch', title: 'We launched' },
  { url: 'https://example.com/docs/getting-started', title: 'Getting started' },
  { url: 'https://example.com/docs/api/authentication', title: 'Authentication' },
  { url: 'https://example.com/pricing', title: 'Plans and pricing' },
  { url: 'https://example.com/docs/api/rate-limits', title: 'Rate limits' },
  { url: 'https://example.com/docs/webhooks', title: 'Webhooks' },
];

test('the link a query is obviously about comes first', () => {
  assert.equal(rankLinks(LINKS, 'pricing')[0]?.url, 'https://example.com/pricing');
  assert.equal(rankLinks(LINKS, 'API authentication')[0]?.url, 'https://example.com/docs/api/authentication');
  assert.equal(rankLinks(LINKS, 'rate limit')[0]?.url, 'https://example.com/docs/api/rate-limits');
  assert.equal(rankLinks(LINKS, 'Webhook')[0]?.url, 'https://example.com/docs/webhooks');
});

test('a rarer word outweighs a common one said more often', () => {
  const links = [
    { url: 'https://e.com/docs/overview', title: 'Overview' },
    { url: 'https://e.com/docs/docs-home', title: 'Docs' },
    { url: 'https://e.com/docs/install', title: 'Install' },
    { url: 'https://e.com/docs/config', title: 'Configuration' },
    { url: 'https://e.com/webhooks', title: 'Webhooks: events sent to your server when things happen' },
  ];
  assert.equal(rankLinks(links, 'docs webhooks')[0]?.url, 'https://e.com/webhooks');
});

test('the scored links first, then the rest in their original order; the input is not changed', () => {
  const before = [...LINKS];
  const ranked = rankLinks(LINKS, 'api');
  assert.deepEqual(
    ranked.map((link) => link.url),
    [
      'https://example.com/docs/api/authentication',
      'https://example.com/docs/api/rate-limits',
      'https://example.com/',
      'https://example.com/blog/2024/launch',
      'https://example.com/docs/getting-started',
      'https://example.com/pricing',
      'https://example.com/docs/webhooks',
    ],
  );
  assert.deepEqual(LINKS, before);
});

test('equal scores keep the original order', () => {
  const twins = [
    { url: 'https://e.com/b/guide' },
    { url: 'https://e.com/a/guide' },
    { url: 'https://e.com/c/other' },
    { url: 'https://e.com/d/guide' },
  ];
  assert.deepEqual(
    rankLinks(twins, 'guides').map((link) => link.url),
    ['https://e.com/b/guide', 'https://e.com/a/guide', 'https://e.com/d/guide', 'https://e.com/c/other'],
  );
});

test('words of the path are decoded; extra fields are kept', () => {
  const links = [
    { url: 'https://e.com/x', source: 'page' },
    { url: 'https://e.com/caf%C3%A9-menu', source: 'sitemap' },
  ];
  assert.deepEqual(rankLinks(links, 'Café'), [links[1], links[0]]);
});

test('a query without words changes nothing', () => {
  assert.deepEqual(rankLinks(LINKS, ' ?! '), LINKS);
});
