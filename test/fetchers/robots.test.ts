// robots.txt per RFC 9309 for FetchdownBot: rules, 4xx → allow, 5xx → disallow, unreachable → the network failure,
// cached 24 h, fetched through the guarded client.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createMemoryCache } from '../../src/cache/memory.js';
import type { Cache } from '../../src/cache/types.js';
import { BOT_TOKEN } from '../../src/config.js';
import { createRobotsPolicy, ROBOTS_TTL_SECONDS } from '../../src/fetchers/robots.js';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.js';
import { startFetcherSite, type FetcherSite } from '../helpers/fixture-fetchers.js';

let site: FetcherSite;
let client: SafeClient;
let cache: Cache;
const clientOptions = { timeoutMs: 2000, maxBytes: 1 << 20, maxRedirects: 3, userAgent: 'FetchdownBot/1.0' };
before(async () => {
  site = await startFetcherSite();
  client = createSafeClient({ allowPrivateNetworks: true, ...clientOptions });
});
after(async () => {
  await client.close();
  await site.close();
});
beforeEach(() => {
  cache = createMemoryCache({ maxEntries: 100 });
});

const policy = () => createRobotsPolicy({ client, cache, token: BOT_TOKEN });
const at = (path: string) => new URL(site.url(path));

describe('rules', () => {
  test('our group applies, longest match wins, Allow beats an equal Disallow, other bots are ignored', async () => {
    site.setRobots({
      status: 200,
      body: [
        'User-agent: *',
        'Disallow: /',
        '',
        'User-agent: fetchdownbot',
        'Disallow: /private',
        'Allow: /private/open',
        'Disallow: /*.json$',
        '',
        'User-agent: OtherBot',
        'Allow: /',
      ].join('\n'),
    });
    const robots = policy();
    assert.equal(await robots.check(at('/article')), null);
    assert.equal(await robots.check(at('/private/open/page')), null);
    const refused = await robots.check(at('/private/x'));
    assert.equal(refused?.code, 'robots_disallowed');
    assert.match(refused?.detail ?? '', /disallows FetchdownBot from \/private\/x/);
    assert.equal((await robots.check(at('/data/list.json')))?.code, 'robots_disallowed');
    assert.equal(await robots.check(at('/data/list.json?x=1')), null);
  });

  test('without a group of ours, the * group applies', async () => {
    site.setRobots({ status: 200, body: 'User-agent: *\nDisallow: /article\n' });
    assert.equal((await policy().check(at('/article')))?.code, 'robots_disallowed');
  });
});

describe('status codes (RFC 9309 §2.3.1)', () => {
  for (const status of [404, 403, 410]) {
    test(`${status}: everything is allowed`, async () => {
      site.setRobots({ status, body: 'User-agent: *\nDisallow: /' });
      assert.equal(await policy().check(at('/article')), null);
    });
  }

  test('500: everything is disallowed, retryable', async () => {
    site.setRobots({ status: 500 });
    const refused = await policy().check(at('/article'));
    assert.equal(refused?.code, 'robots_disallowed');
    assert.equal(refused?.retryable, true);
    assert.match(refused?.detail ?? '', /answered 500/);
  });

  test('unreachable: the page is not fetched, and the failure says why', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const refused = await policy().check(new URL(`http://127.0.0.1:${port}/page`));
    assert.equal(refused?.code, 'upstream_unreachable');
  });

  test('a blocked host stays blocked_url (the guard refuses robots.txt as it refuses the page)', async () => {
    const guarded = createSafeClient({ allowPrivateNetworks: false, ...clientOptions });
    try {
      const refused = await createRobotsPolicy({ client: guarded, cache, token: BOT_TOKEN }).check(at('/article'));
      assert.equal(refused?.code, 'blocked_url');
    } finally {
      await guarded.close();
    }
  });
});

describe('caching', () => {
  test('one fetch per origin for 24 h, shared by concurrent checks', async () => {
    site.setRobots({ status: 200, body: 'User-agent: *\nDisallow: /no\n' });
    const before = site.hits('/robots.txt');
    const robots = policy();
    await Promise.all([robots.check(at('/a')), robots.check(at('/b')), robots.check(at('/no'))]);
    await robots.check(at('/c'));
    assert.equal(site.hits('/robots.txt') - before, 1);
    const entry = await cache.get(`robots:v1:${site.origin}`);
    assert.ok(entry);
    assert.equal(Math.round((entry.expiresAt - entry.storedAt) / 1000), ROBOTS_TTL_SECONDS);
  });
});

describe('crawl hints', () => {
  test("our group's Crawl-delay in ms, the Sitemap lines absolute, from the cached record", async () => {
    site.setRobots({
      status: 200,
      body: [
        'User-agent: *',
        'Crawl-delay: 10',
        '',
        'User-agent: FetchdownBot',
        'Crawl-delay: 1.5',
        'Disallow: /private',
        '',
        'SITEMAP: /sitemap_index.xml',
        'Sitemap: https://cdn.example/sitemaps/news.xml.gz',
        'Sitemap: mailto:someone@example.com',
      ].join('\n'),
    });
    const before = site.hits('/robots.txt');
    const robots = policy();
    assert.equal((await robots.check(at('/private/x')))?.code, 'robots_disallowed');
    assert.deepEqual(await robots.crawlHints(`${site.origin}/any/page`), {
      crawlDelayMs: 1500,
      sitemaps: [site.url('/sitemap_index.xml'), 'https://cdn.example/sitemaps/news.xml.gz'],
    });
    assert.equal(site.hits('/robots.txt') - before, 1);
  });

  test('without a group of ours, the * group gives the delay', async () => {
    site.setRobots({ status: 200, body: 'User-agent: *\nCrawl-delay: 2\n' });
    assert.deepEqual(await policy().crawlHints(site.origin), { crawlDelayMs: 2000, sitemaps: [] });
  });

  for (const status of [404, 500]) {
    test(`${status}: no delay, no sitemaps`, async () => {
      site.setRobots({ status, body: 'User-agent: *\nCrawl-delay: 5\nSitemap: /s.xml' });
      assert.deepEqual(await policy().crawlHints(site.origin), { crawlDelayMs: null, sitemaps: [] });
    });
  }
});
