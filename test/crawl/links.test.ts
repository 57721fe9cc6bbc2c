// A page's links and canonical URL from its HTML: <base href> honoured for every link, text as the title (collapsed,
// at most 200 characters), each link once, other schemes left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linksFromHtml } from '../../src/crawl/links.js';

const PAGE = 'https://example.com/docs/guide/page';

test('links resolve against <base href>, even those before it; the canonical too', () => {
  const html = `<!doctype html><html><head>
<link rel="stylesheet" href="/style.css">
<link rel="Canonical Alternate" href="intro/?utm_source=feed">
<base href="https://example.com/v2/">
</head><body>
<a href="install">Install</a>
<a href="../about#team">About <b>us</b></a>
<a href="https://Other.example.net:443/x">Elsewhere</a>
</body></html>`;
  assert.deepEqual(linksFromHtml(html, PAGE), {
    links: [
      { url: 'https://example.com/v2/install', title: 'Install' },
      { url: 'https://example.com/about', title: 'About us' },
      { url: 'https://other.example.net/x', title: 'Elsewhere' },
    ],
    canonical: 'https://example.com/v2/intro',
  });
});

test('without <base>, the page URL is the base; a relative <base> resolves against it', () => {
  const plain = linksFromHtml('<a href="next">Next</a>', PAGE);
  assert.deepEqual(plain.links, [{ url: 'https://example.com/docs/guide/next', title: 'Next' }]);
  assert.equal(plain.canonical, undefined);
  const relative = linksFromHtml('<base href="/archive/"><a href="next">Next</a>', PAGE);
  assert.deepEqual(relative.links, [{ url: 'https://example.com/archive/next', title: 'Next' }]);
});

test('each URL once, its first text kept (or the first text it is given); other schemes and no-href anchors dropped', () => {
  const html = `
<a href="/a"><img src="logo.png" alt=""></a>
<a href="/a">Alpha</a>
<a href="/a#again">Alpha again</a>
<a href="/b/">Beta</a><a href="/b">B</a>
<a name="anchor">no href</a>
<a href="javascript:void(0)">Click</a>
<a href="mailto:hi@example.com">Mail</a>
<a href="#top">Top</a>
<a href="/c" rel="nofollow">Nofollowed</a>`;
  assert.deepEqual(linksFromHtml(html, PAGE).links, [
    { url: 'https://example.com/a', title: 'Alpha' },
    { url: 'https://example.com/b', title: 'Beta' },
    { url: 'https://example.com/docs/guide/page', title: 'Top' },
    { url: 'https://example.com/c', title: 'Nofollowed' },
  ]);
});

test('titles: entities decoded, spaces collapsed, scripts left out, an image link named by its alt, 200 characters', () => {
  const long = 'word '.repeat(100);
  const html = `
<a href="/one">  Fish &amp;
   chips <script>track()</script><style>a{}</style></a>
<a href="/two"><img src="x.png" alt="Company logo"></a>
<a href="/three">${long}</a>
<a href="/four">   </a>`;
  const links = linksFromHtml(html, PAGE).links;
  assert.deepEqual(links.slice(0, 2), [
    { url: 'https://example.com/one', title: 'Fish & chips' },
    { url: 'https://example.com/two', title: 'Company logo' },
  ]);
  assert.equal(links[2]?.title?.length, 200);
  assert.ok(long.startsWith(links[2]?.title ?? 'x'));
  assert.deepEqual(links[3], { url: 'https://example.com/four' });
});
