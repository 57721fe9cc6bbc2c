// Sitemaps read as streams: urlsets and indexes, prefixes, CDATA and entities, gzip by flag or by magic bytes, a
// 50,000-URL gzipped index read chunk by chunk; robots.txt's Sitemap lines; discovery breadth first within its bounds.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import {
  discoverFromSitemaps,
  readSitemap,
  sitemapUrlsFromRobots,
  type SitemapEntry,
} from '../../src/crawl/sitemaps.js';

const ORIGIN = 'https://example.com';
const CHUNK = 4 * 1024;

async function* chunked(bytes: Uint8Array, size = CHUNK, pulled?: { count: number }): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) {
    if (pulled) pulled.count++;
    yield bytes.subarray(at, at + size);
  }
}

async function* texts(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const urlset = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  locs.map((loc) => `  <url><loc>${loc}</loc><lastmod>2024-01-01</lastmod></url>\n`).join('') +
  '</urlset>\n';
const sitemapIndex = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  locs.map((loc) => `  <sitemap><loc>${loc}</loc></sitemap>\n`).join('') +
  '</sitemapindex>\n';

/** A site of files by path: fetchText gives each as 4 KiB chunks, counting what was fetched and pulled. */
function siteOf(files: Record<string, string | Uint8Array>) {
  const fetched: string[] = [];
  const pulled = new Map<string, { count: number }>();
  const fetchText = async (url: URL) => {
    const path = url.pathname + url.search;
    fetched.push(path);
    const file = files[path];
    if (file === undefined) return null;
    const counter = { count: 0 };
    pulled.set(path, counter);
    return chunked(typeof file === 'string' ? Buffer.from(file) : file, CHUNK, counter);
  };
  return { fetchText, fetched, pulled };
}

describe('readSitemap', () => {
  test('a urlset gives pages, an index sitemaps', async () => {
    assert.deepEqual(await collect(readSitemap(texts(urlset([`${ORIGIN}/a`, `${ORIGIN}/b`])))), [
      { loc: `${ORIGIN}/a`, kind: 'page' },
      { loc: `${ORIGIN}/b`, kind: 'page' },
    ]);
    assert.deepEqual(await collect(readSitemap(texts(sitemapIndex([`${ORIGIN}/s1.xml`])))), [
      { loc: `${ORIGIN}/s1.xml`, kind: 'sitemap' },
    ]);
  });

  test('whitespace, CDATA, entities and namespace prefixes; an extension’s <image:loc> is not a page', async () => {
    const xml = `<?xml version="1.0"?>
<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <sm:url>
    <sm:loc>
      https://example.com/search?q=a&amp;page=2
    </sm:loc>
    <image:image><image:loc>https://example.com/photo.jpg</image:loc></image:image>
  </sm:url>
  <URL><LOC><![CDATA[https://example.com/cdata?x=1&y=2]]></LOC></URL>
  <url><loc>https://example.com/caf&#233;</loc></url>
  <url><loc>   </loc></url>
</sm:urlset>`;
    assert.deepEqual(
      (await collect(readSitemap(texts(xml)))).map((entry) => entry.loc),
      ['https://example.com/search?q=a&page=2', 'https://example.com/cdata?x=1&y=2', 'https://example.com/café'],
    );
  });

  test('a tag split across chunks is read whole', async () => {
    const xml = Buffer.from(urlset([`${ORIGIN}/split-across-chunks`]));
    assert.deepEqual(
      (await collect(readSitemap(chunked(xml, 7)))).map((entry) => entry.loc),
      [`${ORIGIN}/split-across-chunks`],
    );
  });

  test('gzip is inflated when its magic bytes say so, or when asked', async () => {
    const zipped = gzipSync(urlset([`${ORIGIN}/zipped`]));
    assert.equal((await collect(readSitemap(chunked(zipped, 1))))[0]?.loc, `${ORIGIN}/zipped`);
    assert.equal((await collect(readSitemap(chunked(zipped), { gzip: true })))[0]?.loc, `${ORIGIN}/zipped`);
    await assert.rejects(collect(readSitemap(texts(urlset([`${ORIGIN}/plain`])), { gzip: true })));
  });

  test('past maxBytes uncompressed (a gzip bomb), the reading throws', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from(urlset([`${ORIGIN}/first`])), Buffer.alloc(4 << 20, 0x20)]));
    assert.ok(bomb.length < 10_000);
    const seen: SitemapEntry[] = [];
    await assert.rejects(async () => {
      for await (const entry of readSitemap(chunked(bomb), { maxBytes: 1 << 20 })) seen.push(entry);
    }, /larger than/);
    assert.deepEqual(seen, [{ loc: `${ORIGIN}/first`, kind: 'page' }]);
  });
});

describe("robots.txt's Sitemap lines", () => {
  test('any case, resolved, fragments and comments dropped, deduped, http(s) only', () => {
    const robots = [
      'User-agent: *',
      'Disallow: /private',
      'Sitemap: https://example.com/sitemap_index.xml',
      'sitemap:/news.xml # the news',
      '  SITEMAP :  https://cdn.example.net/s.xml.gz',
      'Sitemap: https://example.com/sitemap_index.xml#again',
      'Sitemap: ftp://example.com/s.xml',
      '# Sitemap: https://example.com/commented.xml',
    ].join('\r\n');
    assert.deepEqual(sitemapUrlsFromRobots(robots, ORIGIN), [
      'https://example.com/sitemap_index.xml',
      'https://example.com/news.xml',
      'https://cdn.example.net/s.xml.gz',
    ]);
  });
});

describe('discoverFromSitemaps', () => {
  // 50,000 URLs in 3 gzipped sitemaps under a gzipped index named by robots.txt.
  const PER_SITEMAP = [16_667, 16_667, 16_666];
  const big: Record<string, Uint8Array | string> = {
    '/robots.txt': 'User-agent: *\nAllow: /\nSitemap: https://example.com/sitemap_index.xml.gz\n',
    '/sitemap_index.xml.gz': gzipSync(sitemapIndex(PER_SITEMAP.map((_, i) => `${ORIGIN}/sitemaps/part-${i}.xml.gz`))),
  };
  let next = 0;
  PER_SITEMAP.forEach((count, i) => {
    // A hash in each URL keeps the gzip from shrinking a sitemap to a few chunks.
    const locs = Array.from({ length: count }, () => {
      const n = next++;
      return `${ORIGIN}/products/item-${n}-${((n * 2654435761) >>> 0).toString(36)}?color=red&amp;size=m`;
    });
    big[`/sitemaps/part-${i}.xml.gz`] = gzipSync(urlset(locs));
  });

  test('a gzipped index of 3 sitemaps: all 50,000 pages, each once, read as the chunks arrive', async () => {
    const site = siteOf(big);
    let count = 0;
    let pulledAtFirst = -1;
    for await (const url of discoverFromSitemaps({
      start: new URL(`${ORIGIN}/`),
      fetchText: site.fetchText,
      limit: 100_000,
    })) {
      if (count === 0) {
        pulledAtFirst = site.pulled.get('/sitemaps/part-0.xml.gz')?.count ?? -1;
        assert.equal(url, `${ORIGIN}/products/item-0-0?color=red&size=m`);
      }
      count++;
    }
    assert.equal(count, 50_000);
    // The first page came out of the first chunks: nothing waited for the whole sitemap.
    const chunks = Math.ceil((big['/sitemaps/part-0.xml.gz'] as Uint8Array).length / CHUNK);
    assert.ok(pulledAtFirst >= 1 && pulledAtFirst <= chunks / 3, `${pulledAtFirst} of ${chunks} chunks pulled`);
    assert.deepEqual(site.fetched, [
      '/robots.txt',
      '/sitemap_index.xml.gz',
      '/sitemaps/part-0.xml.gz',
      '/sitemaps/part-1.xml.gz',
      '/sitemaps/part-2.xml.gz',
    ]);
  });

  test('at the limit it stops: the later sitemaps are not fetched, the current one not read on', async () => {
    const site = siteOf(big);
    const urls = await collect(discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 10 }));
    assert.equal(urls.length, 10);
    assert.equal(site.fetched.at(-1), '/sitemaps/part-0.xml.gz');
    const chunks = Math.ceil((big['/sitemaps/part-0.xml.gz'] as Uint8Array).length / CHUNK);
    assert.ok((site.pulled.get('/sitemaps/part-0.xml.gz')?.count ?? 0) <= chunks / 3);
  });

  test('pages the caller does not accept are not counted towards the limit', async () => {
    const site = siteOf(big);
    const accept = (url: string) => /item-\d*7-/.test(url);
    const urls = await collect(
      discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 3, accept }),
    );
    assert.deepEqual(
      urls.map((url) => /item-(\d+)-/.exec(url)?.[1]),
      ['7', '17', '27'],
    );
  });

  test('without Sitemap lines, /sitemap.xml; pages deduped across sitemaps after normalisation', async () => {
    const site = siteOf({
      '/robots.txt': 'User-agent: *\nDisallow:\n',
      '/sitemap.xml': sitemapIndex([`${ORIGIN}/a.xml`, `${ORIGIN}/b.xml`, `${ORIGIN}/a.xml`]),
      '/a.xml': urlset([`${ORIGIN}/one`, `${ORIGIN}/two/`]),
      '/b.xml': urlset([`${ORIGIN}/two`, `${ORIGIN}/one#top`, `${ORIGIN}/three?utm_source=x`, 'mailto:x@example.com']),
    });
    const urls = await collect(discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 100 }));
    assert.deepEqual(urls, [`${ORIGIN}/one`, `${ORIGIN}/two`, `${ORIGIN}/three`]);
    assert.deepEqual(site.fetched, ['/robots.txt', '/sitemap.xml', '/a.xml', '/b.xml']);
  });

  test('breadth first, at most maxSitemaps fetched', async () => {
    const site = siteOf({
      '/robots.txt': 'Sitemap: /index.xml\n',
      '/index.xml': sitemapIndex([`${ORIGIN}/nested.xml`, `${ORIGIN}/s1.xml`, `${ORIGIN}/s2.xml`, `${ORIGIN}/s3.xml`]),
      '/nested.xml': sitemapIndex([`${ORIGIN}/deep.xml`]),
      '/s1.xml': urlset([`${ORIGIN}/p1`]),
      '/s2.xml': urlset([`${ORIGIN}/p2`]),
      '/s3.xml': urlset([`${ORIGIN}/p3`]),
      '/deep.xml': urlset([`${ORIGIN}/deep`]),
    });
    const all = await collect(discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 100 }));
    assert.deepEqual(all, [`${ORIGIN}/p1`, `${ORIGIN}/p2`, `${ORIGIN}/p3`, `${ORIGIN}/deep`]);
    site.fetched.length = 0;
    const bounded = await collect(
      discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 100, maxSitemaps: 3 }),
    );
    assert.deepEqual(bounded, [`${ORIGIN}/p1`]);
    assert.deepEqual(site.fetched, ['/robots.txt', '/index.xml', '/nested.xml', '/s1.xml']);
  });

  test('a sitemap missing, or broken mid-stream, gives what it gave and the next one is read', async () => {
    const truncated = gzipSync(
      urlset([`${ORIGIN}/early`, ...Array.from({ length: 3000 }, (_, i) => `${ORIGIN}/x${i}`)]),
    );
    const site = siteOf({
      '/robots.txt': 'Sitemap: /gone.xml\nSitemap: /broken.xml.gz\nSitemap: /fine.xml\n',
      '/broken.xml.gz': truncated.subarray(0, truncated.length - 200),
      '/fine.xml': urlset([`${ORIGIN}/fine`]),
    });
    const urls = await collect(
      discoverFromSitemaps({ start: new URL(ORIGIN), fetchText: site.fetchText, limit: 100_000 }),
    );
    assert.equal(urls[0], `${ORIGIN}/early`);
    assert.equal(urls.at(-1), `${ORIGIN}/fine`);
    assert.ok(urls.length < 3002);
  });
});
