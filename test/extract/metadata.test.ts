// readMetadata's page details (author, published_at, site_name, canonical_url, image) from each source, in order of
// trust, and from malformed input; the date normalisation they share with the PDF and reader fetchers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseDate, normalisePdfDate } from '../../src/extract/metadata/dates.js';
import { extractHtml } from '../../src/extract/index.js';
import { NO_DETAILS, readMetadata, type PageDetails } from '../../src/extract/metadata/metadata.js';
import { normaliseHtml, parseDocument } from '../../src/extract/parse/parse.js';

const PAGE_URL = 'https://news.example/2024/03/bridge.html';

/** The details of a page, read as extractHtml reads them: JSON-LD collected while the scripts are cut. */
function details(head: string, body = '<p>Body.</p>'): PageDetails {
  const jsonLd: string[] = [];
  const source = normaliseHtml(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, jsonLd);
  return readMetadata(parseDocument(source), PAGE_URL, jsonLd).details;
}

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('JSON-LD', () => {
  test('an article node gives author, date, publisher and image', () => {
    const head = ld({
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: 'The bridge is rebuilt',
      author: { '@type': 'Person', name: 'Jane Roe' },
      datePublished: '2024-03-05T10:20:30+01:00',
      publisher: { '@type': 'Organization', name: 'Daily Courier' },
      image: '/img/bridge.jpg',
    });
    assert.deepEqual(details(head), {
      author: 'Jane Roe',
      publishedAt: '2024-03-05T10:20:30+01:00',
      siteName: 'Daily Courier',
      canonicalUrl: null,
      image: 'https://news.example/img/bridge.jpg',
    });
  });

  test('an @graph with @id references (as Yoast writes it) is followed', () => {
    const head = ld({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', '@id': 'https://news.example/#website', name: 'Courier Online' },
        { '@type': 'Organization', '@id': 'https://news.example/#org', name: 'Daily Courier' },
        {
          '@type': 'ImageObject',
          '@id': 'https://news.example/#primaryimage',
          url: 'https://cdn.news.example/bridge.jpg',
        },
        { '@type': 'Person', '@id': 'https://news.example/#/person/1', name: 'Jane Roe' },
        {
          '@type': 'WebPage',
          '@id': PAGE_URL,
          datePublished: '2024-03-01',
          primaryImageOfPage: { '@id': 'https://news.example/#primaryimage' },
        },
        {
          '@type': ['Article', 'NewsArticle'],
          author: { '@id': 'https://news.example/#/person/1' },
          datePublished: '2024-03-05T09:00:00Z',
          publisher: { '@id': 'https://news.example/#org' },
          image: { '@id': 'https://news.example/#primaryimage' },
        },
      ],
    });
    const found = details(head);
    assert.equal(found.author, 'Jane Roe');
    // The article node is more specific than the page node that comes before it.
    assert.equal(found.publishedAt, '2024-03-05T09:00:00Z');
    assert.equal(found.siteName, 'Daily Courier');
    assert.equal(found.image, 'https://cdn.news.example/bridge.jpg');
  });

  test('arrays of nodes and of authors; authors joined once each, images as objects or arrays', () => {
    const head = ld([
      { '@type': 'BreadcrumbList', itemListElement: [] },
      {
        '@type': 'http://schema.org/BlogPosting',
        author: [
          'Ann Lee',
          { '@type': 'Person', name: 'Bo Chan' },
          { name: 'Ann Lee' },
          { givenName: 'Cy', familyName: 'Diaz' },
        ],
        dateCreated: '2023-11-02',
        image: [{ '@type': 'ImageObject', contentUrl: 'https://cdn.example/a.png' }, 'https://cdn.example/b.png'],
      },
    ]);
    const found = details(head);
    assert.equal(found.author, 'Ann Lee, Bo Chan, Cy Diaz');
    assert.equal(found.publishedAt, '2023-11-02');
    assert.equal(found.image, 'https://cdn.example/a.png');
  });

  test('a WebPage node is used when the page has no article node; the WebSite names the site', () => {
    const head = ld({
      '@graph': [
        { '@type': 'WebSite', name: 'Courier Online' },
        { '@type': 'AboutPage', datePublished: '2020-01-02', author: 'Team' },
      ],
    });
    const found = details(head);
    assert.equal(found.siteName, 'Courier Online');
    assert.equal(found.publishedAt, '2020-01-02');
    assert.equal(found.author, 'Team');
  });

  test('JSON-LD is trusted over meta elements, which fill what it leaves out', () => {
    const head =
      ld({ '@type': 'Article', author: { name: 'Jane Roe' }, datePublished: '2024-03-05' }) +
      '<meta name="author" content="Someone Else"><meta property="article:published_time" content="2020-01-01">' +
      '<meta property="og:site_name" content="Daily Courier"><meta property="og:image" content="https://cdn.example/og.jpg">';
    assert.deepEqual(details(head), {
      author: 'Jane Roe',
      publishedAt: '2024-03-05',
      siteName: 'Daily Courier',
      canonicalUrl: null,
      image: 'https://cdn.example/og.jpg',
    });
  });

  test('entities in JSON-LD strings are decoded and whitespace collapsed', () => {
    const head =
      '<script type="application/ld+json">{"@type": "Article", "author": {"name": "  Jane &amp; John\\n O&#8217;Neil "}, "publisher": {"name": "Caf&eacute; Times"}}</script>';
    const found = details(head);
    assert.equal(found.author, 'Jane & John O\u2019Neil');
    // Named entities outside the common few stay as written.
    assert.equal(found.siteName, 'Caf&eacute; Times');
  });
});

describe('JSON-LD that is malformed or unusable', () => {
  const article = { '@type': 'Article', author: 'Jane Roe', datePublished: '2024-03-05' };

  test('a block that does not parse is skipped; the next one is read', () => {
    const head = '<script type="application/ld+json">{"@type": "Article", "author": "Broken",}</script>' + ld(article);
    assert.equal(details(head).author, 'Jane Roe');
  });

  test('HTML comment and CDATA wrappers and raw newlines inside strings are tolerated', () => {
    const wrapped = `<script type="application/ld+json"><!--\n{"@type": "Article", "author": "Jane\nRoe"}\n--></script>`;
    assert.equal(details(wrapped).author, 'Jane Roe');
    const cdata = `<script type='application/ld+json'>//<![CDATA[\n{"@type": "Article", "author": "Bo Chan"}\n//]]></script>`;
    assert.equal(details(cdata).author, 'Bo Chan');
  });

  test('values of the wrong shape are ignored, never thrown on', () => {
    for (const value of [null, 42, 'text', [], [null, 1, 'x'], { '@graph': 'no' }, { '@type': 7, author: 'X' }]) {
      assert.deepEqual(details(ld(value)), NO_DETAILS, JSON.stringify(value));
    }
    const odd = details(
      ld({
        '@type': 'Article',
        author: [42, { name: 7 }, [['nested']]],
        datePublished: 20240305,
        image: { url: false },
        publisher: 'Plain',
      }),
    );
    assert.deepEqual(odd, { ...NO_DETAILS, siteName: 'Plain' });
  });

  test('nodes of other types (products, breadcrumbs) say nothing about the page', () => {
    assert.deepEqual(
      details(ld({ '@type': 'Product', name: 'Kettle', image: 'https://shop.example/k.jpg', author: 'Acme' })),
      NO_DETAILS,
    );
  });

  test('a block over 1 MB is not parsed; smaller ones are', () => {
    const huge = ld({ '@type': 'Article', author: 'Huge Block', filler: 'x'.repeat(1_100_000) });
    assert.equal(details(huge).author, null);
    assert.equal(details(huge + ld(article)).author, 'Jane Roe');
  });

  test('a catalogue of thousands of nodes is read only up to a bound: the article after it is not reached', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({
      '@type': 'Product',
      '@id': `#p${i}`,
      name: `Item ${i}`,
    }));
    assert.deepEqual(details(ld({ '@graph': [...items, article] })), NO_DETAILS);
  });

  test('other script types are not JSON-LD', () => {
    const head = `<script type="application/json">${JSON.stringify(article)}</script><script>var x = ${JSON.stringify(article)};</script>`;
    assert.deepEqual(details(head), NO_DETAILS);
  });
});

describe('meta and link elements', () => {
  test('OpenGraph, article: and link rel=canonical', () => {
    const head =
      '<meta property="article:published_time" content="2024-03-05T10:20:30.000Z"><meta property="og:site_name" content="Daily Courier">' +
      '<meta property="og:image" content="/img/og.jpg"><meta property="og:url" content="https://news.example/og-url">' +
      '<link rel="canonical" href="/2024/03/bridge">';
    assert.deepEqual(details(head), {
      author: null,
      publishedAt: '2024-03-05T10:20:30Z',
      siteName: 'Daily Courier',
      canonicalUrl: 'https://news.example/2024/03/bridge',
      image: 'https://news.example/img/og.jpg',
    });
  });

  test('og:url is the canonical URL when there is no link; twitter:image the image when there is no og:image', () => {
    const found = details(
      '<meta property="og:url" content="https://news.example/og-url"><meta name="twitter:image" content="https://cdn.example/t.jpg">',
    );
    assert.equal(found.canonicalUrl, 'https://news.example/og-url');
    assert.equal(found.image, 'https://cdn.example/t.jpg');
  });

  test('relative URLs resolve against <base>', () => {
    const found = details(
      '<base href="https://static.example/site/"><meta property="og:image" content="og.jpg"><link rel="canonical" href="page">',
    );
    assert.equal(found.image, 'https://static.example/site/og.jpg');
    assert.equal(found.canonicalUrl, 'https://static.example/site/page');
  });

  test('a profile URL is no author name; the next meta is used', () => {
    const found = details(
      '<meta property="article:author" content="https://www.facebook.com/jane.roe"><meta name="author" content="Jane Roe">',
    );
    assert.equal(found.author, 'Jane Roe');
  });

  test('scholarly and Dublin Core names: every citation_author, citation and dc dates', () => {
    const citation = details(
      '<meta name="citation_author" content="Lee, Ann"><meta name="citation_author" content="Chan, Bo">' +
        '<meta name="citation_publication_date" content="2021/07/14">',
    );
    assert.equal(citation.author, 'Lee, Ann, Chan, Bo');
    assert.equal(citation.publishedAt, '2021-07-14');
    const dc = details('<meta name="DC.creator" content="Cy Diaz"><meta name="DC.date" content="2019-05-06">');
    assert.equal(dc.author, 'Cy Diaz');
    assert.equal(dc.publishedAt, '2019-05-06');
  });

  test('javascript:, data: and absurdly long URLs are no URL', () => {
    assert.equal(details('<meta property="og:image" content="javascript:alert(1)">').image, null);
    assert.equal(details('<meta property="og:image" content="data:image/png;base64,iVBORw0KGgo=">').image, null);
    assert.equal(details(`<link rel="canonical" href="https://news.example/${'a'.repeat(3000)}">`).canonicalUrl, null);
    assert.equal(
      details(ld({ '@type': 'Article', image: 'javascript:alert(1)' }) + '<meta property="og:image" content="/ok.jpg">')
        .image,
      'https://news.example/ok.jpg',
    );
  });

  test('an unreadable date falls through to the next source', () => {
    const found = details(
      '<meta property="article:published_time" content="yesterday"><meta name="dc.date" content="2019-05-06">',
    );
    assert.equal(found.publishedAt, '2019-05-06');
  });

  test('a very long site name or author list is cut at a word', () => {
    const found = details(`<meta property="og:site_name" content="${'Courier '.repeat(100)}">`);
    assert.ok(found.siteName!.length <= 300, String(found.siteName?.length));
    assert.match(found.siteName!, /^Courier Courier .*Courier…$/);
    const authors = Array.from({ length: 80 }, (_, i) => `Author Number ${i}`);
    const joined = details(ld({ '@type': 'Article', author: authors })).author!;
    assert.ok(
      joined.length <= 300 && joined.startsWith('Author Number 0, Author Number 1, ') && joined.endsWith('…'),
      joined,
    );
  });
});

describe('the body: microdata, bylines and <time>', () => {
  test('itemprop author (with a name inside) and datePublished', () => {
    const body =
      '<article><div itemprop="author" itemscope><img src="/a.jpg" alt=""><span itemprop="name">Jane Roe</span></div>' +
      '<meta itemprop="datePublished" content="2024-03-05T08:00:00-05:00"><p>Body.</p></article>';
    assert.deepEqual(details('', body), {
      ...NO_DETAILS,
      author: 'Jane Roe',
      publishedAt: '2024-03-05T08:00:00-05:00',
    });
  });

  test('a byline element: "By" and a trailing date are not the name; a more exact element inside it wins', () => {
    assert.equal(details('', '<div class="article-byline">By Jane Roe · 5 min read</div>').author, 'Jane Roe');
    assert.equal(
      details('', '<p class="Byline">By <span class="byline__name">Bo Chan</span> and the desk, March 5</p>').author,
      'Bo Chan',
    );
  });

  test('a byline read as a reader sees it: lines apart, <time> left out, a lone "By" is no name', () => {
    assert.equal(
      details('', '<h3 class="byline">by Jeff Foust<br><span class="datetime">Monday, November 18, 2019</span></h3>')
        .author,
      'Jeff Foust',
    );
    assert.equal(
      details('', '<div class="byline"><time datetime="2024-03-05">5 March</time> By Jane Roe</div>').author,
      'Jane Roe',
    );
    const split =
      '<div class="byline-section"><div class="attribution">Courier wire services</div><div class="date">Published 11:11 PM</div></div>';
    assert.equal(details('', split).author, 'Courier wire services');
    assert.equal(
      details(
        '',
        '<h6 class="byline"><em class="byline__by">By </em><a><span class="byline__author">Carrie Arnold</span></a></h6>',
      ).author,
      'Carrie Arnold',
    );
  });

  test('comments and comment forms have authors and dates of their own', () => {
    const comments =
      '<article><p>Body.</p><div id="comments"><div itemprop="author">A Reader</div><span class="comment-author"><a href="/x">Another Reader</a></span>' +
      '<meta itemprop="datePublished" content="2024-04-01"><time datetime="2024-04-02"></time></div>' +
      '<form><p class="comment-form-author"><label>Name (required)</label><input name="author"></p></form></article>';
    assert.deepEqual(details('', comments), NO_DETAILS);
  });

  test('rel=author is trusted over a byline class', () => {
    const body =
      '<div class="byline">Staff report</div><p>Written by <a rel="author" href="/staff/jane">Jane Roe</a></p>';
    assert.equal(details('', body).author, 'Jane Roe');
  });

  test('an author bio is no name', () => {
    const bio =
      '<div class="author-bio">Jane Roe has covered the council for the Courier since 2009 and writes about rivers, roads and the people who mend them.</div>';
    assert.equal(details('', bio).author, null);
  });

  test('<time datetime> counts inside the article or a byline, not elsewhere on the page', () => {
    const sidebar = '<aside><time datetime="2020-01-01">Old post</time></aside>';
    assert.equal(details('', `${sidebar}<p>Body.</p>`).publishedAt, null);
    assert.equal(
      details('', `${sidebar}<article><time datetime="2024-03-05T10:00">5 March</time><p>Body.</p></article>`)
        .publishedAt,
      '2024-03-05T10:00:00',
    );
    assert.equal(
      details('', `${sidebar}<div class="byline">By Jane Roe, <time datetime="2024-03-06">6 March</time></div>`)
        .publishedAt,
      '2024-03-06',
    );
  });

  test('the head is trusted over the body', () => {
    const found = details(
      '<meta name="author" content="Jane Roe"><meta name="dc.date" content="2024-03-05">',
      '<div class="byline">By Bo Chan</div><article><time datetime="2020-01-01"></time></article>',
    );
    assert.equal(found.author, 'Jane Roe');
    assert.equal(found.publishedAt, '2024-03-05');
  });
});

test('a page that says nothing about itself has no details', () => {
  assert.deepEqual(details('<title>Plain</title>', '<h1>Plain</h1><p>Nothing else.</p>'), NO_DETAILS);
});

test('extractHtml carries the details, with JSON-LD read from the raw page', () => {
  const html =
    `<html><head><title>Bridge</title>${ld({ '@type': 'NewsArticle', author: 'Jane Roe', datePublished: '2024-03-05' })}` +
    '<link rel="canonical" href="https://news.example/bridge"></head><body><article><h1>Bridge</h1>' +
    '<p>The town council decided to rebuild the old stone bridge over the river after the spring floods.</p></article></body></html>';
  const result = extractHtml(html, PAGE_URL);
  assert.deepEqual(result.details, {
    ...NO_DETAILS,
    author: 'Jane Roe',
    publishedAt: '2024-03-05',
    canonicalUrl: 'https://news.example/bridge',
  });
  assert.ok(!result.markdown.includes('NewsArticle'), 'JSON-LD is not content');
});

describe('normaliseDate', () => {
  const cases: [string, string | null][] = [
    ['2024-03-05', '2024-03-05'],
    ['2024/3/5', '2024-03-05'],
    ['2024-03-05T10:20:30Z', '2024-03-05T10:20:30Z'],
    ['2024-03-05T10:20:30.123456+0100', '2024-03-05T10:20:30+01:00'],
    ['2024-03-05T10:20:30+05', '2024-03-05T10:20:30+05:00'],
    ['2024-03-05 10:20', '2024-03-05T10:20:00'],
    ['Tue, 05 Mar 2024 10:20:30 GMT', '2024-03-05T10:20:30Z'],
    ['Tue, 05 Mar 2024 10:20:30 +0530', '2024-03-05T10:20:30+05:30'],
    ['5 March 2024', '2024-03-05'],
    ['March 5th, 2024', '2024-03-05'],
    ['Sept. 5, 2024 10:20 PST', '2024-09-05T10:20:00-08:00'],
    ['2024-02-29', '2024-02-29'],
    ['2023-02-29', null],
    ['2024-13-01', null],
    ['2024-03-05T24:00:00', null],
    ['2024-03-05T10:20:30+25:00', null],
    ['Tue, 05 Mar 2024 10:20:30 CET', null],
    ['Marchx 5, 2024', null],
    ['yesterday', null],
    ['', null],
    ['2024-03-05'.repeat(10), null],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.equal(normaliseDate(input), expected));
  }

  test('PDF dates', () => {
    assert.equal(normalisePdfDate("D:20240305102030+01'00'"), '2024-03-05T10:20:30+01:00');
    assert.equal(normalisePdfDate("D:20240305102030Z00'00'"), '2024-03-05T10:20:30Z');
    assert.equal(normalisePdfDate('D:202403051020'), '2024-03-05T10:20:00');
    assert.equal(normalisePdfDate('D:20240305'), '2024-03-05');
    assert.equal(normalisePdfDate('D:2024'), null);
    assert.equal(normalisePdfDate('D:20241305'), null);
  });
});
