// The crawl fixture site itself, before any crawl relies on it: its tree of articles, sitemaps, robots.txt, traps,
// the ways out of its scope, and counters that see what a crawl did.
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import {
  CRAWL_SITE_RECORDS,
  docChildren,
  docDepth,
  docMarker,
  docTitle,
  startCrawlSite,
  type CrawlSite,
} from '../helpers/crawl-site.js';

const site = await startCrawlSite();
after(() => site.close());

interface Got {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** GET as a client that resolves the site's names with CRAWL_SITE_RECORDS: to their address, with the name as Host. */
function get(url: string): Promise<Got> {
  const { hostname, port, pathname, search } = new URL(url);
  const records: Record<string, readonly string[]> = CRAWL_SITE_RECORDS;
  return new Promise((resolve, reject) => {
    const options = { host: records[hostname]?.[0] ?? hostname, port, path: pathname + search };
    request({ ...options, headers: { host: `${hostname}:${port}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The links of a page as written, `&amp;` decoded. */
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

/** A crawler's dedupe, done by hand: no fragment, no tracking parameter, no trailing slash. */
function normalise(href: string, base: string): URL {
  const url = new URL(href, base);
  url.hash = '';
  url.searchParams.delete('utm_source');
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/$/, '');
  return url;
}

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);

test('the articles form a tree that links lead to from /, each with its title, marker and depth', async () => {
  site.reset();
  const depth = new Map<string, number>([[`${site.origin()}/`, 0]]);
  const queue = [`${site.origin()}/`];
  for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
    const page = await get(url);
    assert.equal(page.status, 200, url);
    for (const href of hrefs(page.text)) {
      const next = normalise(href, url);
      if (next.host !== new URL(url).host || !/^\/(docs|dup)\//.test(next.pathname) || depth.has(next.href)) continue;
      depth.set(next.href, depth.get(url)! + 1);
      queue.push(next.href);
    }
  }
  for (let i = 1; i <= 30; i++) {
    const url = `${site.origin()}/docs/${i}`;
    assert.equal(depth.get(url), docDepth(i), url);
    const { text } = await get(url);
    assert.match(text, new RegExp(`<title>${docTitle(i)}</title>`));
    assert.equal(text.match(/PAGE-\d+-MARKER/g)?.join(), docMarker(i));
    assert.match(text, /<p>[^<]{150,}<\/p>/, 'paragraphs of prose');
    const again = `/docs/${docChildren(i, 30)[0] ?? Math.floor((i + 1) / 3)}`;
    for (const variant of ['#details', '?utm_source=x', '/']) assert.ok(hrefs(text).includes(again + variant));
  }
  assert.equal(new Set(Array.from({ length: 30 }, (_, i) => docTitle(i + 1))).size, 30, 'distinct titles');
  assert.equal(depth.has(`${site.origin()}/docs/31`), false);
  assert.equal((await get(`${site.origin()}/docs/31`)).status, 404);

  const stats = site.stats();
  assert.equal(stats.requests['site.test/docs/1'], 2, 'once by the walk, once by the checks');
  assert.deepEqual(stats.outOfScope, []);
  site.reset();
  await get(`${site.origin()}/docs/2/`);
  await get(`${site.origin()}/docs/2?utm_source=x`);
  await get(`${site.origin()}/robots.txt`);
  await get(`${site.origin()}/robots.txt`);
  assert.deepEqual(site.stats().fetchedTwice, ['site.test/docs/2'], 'spelt alike, and robots.txt is not a page');
});

test('/dup/i is the article again with a canonical link to /docs/i, and / links canonically to itself', async () => {
  const dup = await get(`${site.origin()}/dup/7`);
  assert.match(dup.text, new RegExp(`<link rel="canonical" href="${site.origin()}/docs/7">`));
  assert.match(dup.text, new RegExp(docMarker(7)));
  assert.doesNotMatch((await get(`${site.origin()}/docs/7`)).text, /rel="canonical"/);
  const home = await get(`${site.origin()}/`);
  assert.match(home.text, new RegExp(`<link rel="canonical" href="${site.origin()}/">`));
  for (const path of ['/docs/1', '/dup/1', '/admin/settings', '/calendar?month=1', '/loop/a', '/search?q=1'])
    assert.ok(hrefs(home.text).includes(path), path);
});

test('robots.txt forbids /admin/ and names the crawl delay and the sitemap index; the other hosts allow all', async (t) => {
  const robots = await get(`${site.origin()}/robots.txt`);
  assert.equal(
    robots.text,
    `User-agent: *\nDisallow: /admin/\nCrawl-delay: 0\n\nSitemap: ${site.origin()}/sitemap_index.xml\n`,
  );
  assert.equal((await get(`${site.origin()}/admin/users`)).status, 200, 'only robots.txt keeps crawlers out');
  const slow = await startCrawlSite({ crawlDelaySeconds: 2, slowHostDelayMs: 0 });
  t.after(() => slow.close());
  const slowRobots = await get(`${slow.origin('slow.site.test')}/robots.txt`);
  assert.match(slowRobots.text, /^Crawl-delay: 2$/m);
  assert.match(slowRobots.text, new RegExp(`^Sitemap: ${slow.origin('slow.site.test')}/sitemap_index.xml$`, 'm'));
  for (const host of ['www.site.test', 'blog.site.test', 'other.test'] as const)
    assert.equal((await get(`${site.origin(host)}/robots.txt`)).text, 'User-agent: *\nDisallow:\n', host);
  const blogSitemap = await get(`${site.origin('blog.site.test')}/sitemap.xml`);
  assert.deepEqual(
    locs(blogSitemap.text),
    ['/', '/posts/1', '/posts/2', '/posts/3'].map((path) => site.origin('blog.site.test') + path),
  );
});

test('the sitemap index leads to a plain and a gzipped sitemap that list every article once', async (t) => {
  const index = await get(`${site.origin()}/sitemap_index.xml`);
  assert.match(String(index.headers['content-type']), /^application\/xml/);
  assert.match(index.text, /^<\?xml[^>]*>\s*<sitemapindex /);
  const sitemaps = locs(index.text);
  assert.deepEqual(sitemaps, [`${site.origin()}/sitemap-1.xml`, `${site.origin()}/sitemap-2.xml.gz`]);
  const plain = await get(sitemaps[0]!);
  const gzipped = await get(sitemaps[1]!);
  assert.equal(gzipped.headers['content-type'], 'application/gzip');
  assert.equal(gzipped.headers['content-encoding'], undefined, 'a gzipped file, not an encoded answer');
  const listed = [...locs(plain.text), ...locs(gunzipSync(gzipped.body).toString('utf8'))];
  assert.deepEqual(
    listed,
    Array.from({ length: 30 }, (_, i) => `${site.origin()}/docs/${i + 1}`),
  );

  const big = await startCrawlSite({ pages: 10_000 });
  t.after(() => big.close());
  const halves = [await get(`${big.origin()}/sitemap-1.xml`), await get(`${big.origin()}/sitemap-2.xml.gz`)];
  const count = locs(halves[0]!.text).length + locs(gunzipSync(halves[1]!.body).toString('utf8')).length;
  assert.equal(count, 10_000);
  assert.match((await get(`${big.origin()}/docs/10000`)).text, /PAGE-10000-MARKER/);
  assert.equal((await get(`${big.origin()}/docs/10001`)).status, 404);
  assert.equal(docDepth(10_000), 10);
});

test('llms.txt links to articles and the blog in Markdown', async () => {
  const llms = await get(`${site.origin()}/llms.txt`);
  const links = [...llms.text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
  assert.deepEqual(links, [
    `${site.origin()}/docs/1`,
    `${site.origin()}/docs/2`,
    '/docs/3',
    `${site.origin('blog.site.test')}/posts/1`,
  ]);
});

test('the traps never end: a calendar, a looping path, and ever new query strings', async () => {
  let url = `${site.origin()}/calendar?month=1`;
  for (let month = 1; month <= 25; month++) {
    const next = hrefs((await get(url)).text).find((href) => href.startsWith('/calendar'));
    assert.equal(next, `/calendar?month=${month + 1}`);
    url = site.origin() + next;
  }
  url = `${site.origin()}/loop/a`;
  for (let step = 0; step < 10; step++) {
    const page = await get(url);
    assert.equal(page.status, 200);
    url = site.origin() + hrefs(page.text).find((href) => href.startsWith('/loop/'))!;
  }
  assert.equal(new URL(url).pathname, '/loop/a/b/a/b/a/b/a/b/a/b/a');
  const search = hrefs((await get(`${site.origin()}/search?q=4&page=2`)).text).filter((h) => h.startsWith('/search'));
  assert.deepEqual(search, ['/search?q=5', '/search?q=4&page=3']);
});

test('links and a redirect into the private network, and links to other hosts', async () => {
  site.reset();
  const links = hrefs((await get(`${site.origin()}/private-link`)).text);
  const privateAddress = `http://127.0.0.2:${site.port}`;
  assert.deepEqual(links.slice(-2), [`${site.origin('private.test')}/secret`, `${privateAddress}/secret`]);
  const redirect = await get(`${site.origin()}/redirect-private`);
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.location, `${site.origin('private.test')}/secret`);
  assert.deepEqual(hrefs((await get(`${site.origin()}/external`)).text).slice(-4), [
    `${site.origin('other.test')}/`,
    `${site.origin('other.test')}/page`,
    `${site.origin('blog.site.test')}/posts/1`,
    `${site.origin('www.site.test')}/welcome`,
  ]);
  assert.deepEqual(site.stats().outOfScope, []);

  // What a crawl must never request answers all the same, and is counted.
  assert.match((await get(`${site.origin('private.test')}/secret`)).text, /SECRET-MARKER/);
  assert.match((await get(`${privateAddress}/secret`)).text, /SECRET-MARKER/);
  assert.equal((await get(`${site.origin('other.test')}/page`)).status, 200);
  assert.equal((await get(`http://127.0.0.1:${site.port}/`)).status, 404, 'a name the site does not serve');
  for (const path of ['/', '/posts/2']) assert.equal((await get(site.origin('blog.site.test') + path)).status, 200);
  assert.equal((await get(`${site.origin('www.site.test')}/welcome`)).status, 200);
  assert.deepEqual(site.stats().outOfScope, [
    `${site.origin('private.test')}/secret`,
    `${privateAddress}/secret`,
    `${site.origin('other.test')}/page`,
    `http://127.0.0.1:${site.port}/`,
  ]);
});

test('the counters see the requests in flight per host, when each arrived, and start again on reset', async (t) => {
  const slow: CrawlSite = await startCrawlSite({ delayMs: 100, slowHostDelayMs: 300 });
  t.after(() => slow.close());
  const started = Date.now();
  const parallel = (host: 'site.test' | 'slow.site.test' | 'blog.site.test', n: number) =>
    Array.from({ length: n }, (_, i) =>
      get(`${slow.origin(host)}/${host === 'blog.site.test' ? 'posts/1' : `docs/${i + 1}`}`),
    );
  const answers = await Promise.all([
    ...parallel('site.test', 5),
    ...parallel('slow.site.test', 3),
    ...parallel('blog.site.test', 1),
  ]);
  assert.ok(answers.every((answer) => answer.status === 200));
  assert.ok(Date.now() - started >= 300, 'slow.site.test waited its own delay');
  let stats = slow.stats();
  assert.equal(stats.total, 9);
  assert.deepEqual(
    Object.fromEntries(Object.entries(stats.hosts).map(([host, counts]) => [host, counts.maxConcurrent])),
    { 'site.test': 5, 'slow.site.test': 3, 'blog.site.test': 1 },
  );
  // Five in flight at once (maxConcurrent above) means all five arrived before any answered: a count, not a clock.
  assert.equal(stats.hosts['site.test']!.arrivals.length, 5);

  slow.reset();
  assert.deepEqual(slow.stats(), { total: 0, requests: {}, fetchedTwice: [], hosts: {}, outOfScope: [], agents: {} });
  for (let i = 1; i <= 3; i++) await get(`${slow.origin()}/docs/${i}`);
  stats = slow.stats();
  assert.equal(stats.hosts['site.test']!.maxConcurrent, 1, 'one at a time');
  const [first, , third] = stats.hosts['site.test']!.arrivals;
  assert.ok(third! - first! >= 200, 'arrivals a delay apart');
});
