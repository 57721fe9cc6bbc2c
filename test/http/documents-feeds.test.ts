// RSS 2.0, RSS 1.0 and Atom through POST /fetch: the same items read alike from each, whatever the feed is served as
// (its root element decides, so text/xml and application/xml are feeds too). Feeds in the wild are often not quite
// well-formed, so a feed cut after an item gives the items it holds; one cut inside a tag is 422 unreadable_document.
// A DOCTYPE's entities are never expanded (billion laughs stays a few bytes).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { atom, GARDEN_FEED, GARDEN_FEED_MARKDOWN, rss1, rss2 } from '../helpers/documents/feeds.js';
import { startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<rss version="2.0"><channel><title>Laughs &lol3;</title>
<item><title>Only &lol; here</title><link>https://garden.example/lol</link><description>&lol3;&lol3;</description></item>
</channel></rss>`;

let site: DocumentSite;
let api: TestApp;
before(async () => {
  site = await startDocumentSite({
    '/rss2': { type: 'application/rss+xml; charset=utf-8', body: rss2() },
    '/rss1': { type: 'application/rdf+xml', body: rss1() },
    '/atom': { type: 'application/atom+xml', body: atom() },
    '/text-xml': { type: 'text/xml', body: rss2() },
    '/application-xml': { type: 'application/xml', body: atom() },
    '/cut-in-a-tag': { type: 'application/rss+xml', body: rss2().slice(0, 100) },
    '/cut-after-an-item': { type: 'application/rss+xml', body: rss2().slice(0, rss2().indexOf('</item>') + 7) },
    '/laughs': { type: 'text/xml', body: LAUGHS },
  });
  api = await buildTestApp({ after });
});
after(() => site.close());

const fetchPath = (path: string, headers?: Record<string, string>) =>
  api.request('POST', '/fetch', { url: site.url(path) }, headers);

describe('a feed', () => {
  for (const [path, type] of [
    ['/rss2', 'rss'],
    ['/rss1', 'rss'],
    ['/atom', 'atom'],
    ['/text-xml', 'rss'],
    ['/application-xml', 'atom'],
  ] as const) {
    test(`${path}: the feed's title and description, then each item's linked title, ISO date, author and summary`, async () => {
      const res = await fetchPath(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fetch_info.document_type, type);
      assert.equal(res.body.fetch_info.fetcher_used, 'html');
      assert.equal(res.body.metadata.title, GARDEN_FEED.title);
      assert.equal(res.body.markdown, GARDEN_FEED_MARKDOWN);
    });
  }

  test('a feed with a DOCTYPE is a feed as text/xml too, and its entities are left unexpanded, however they nest', async () => {
    const res = await fetchPath('/laughs');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.document_type, 'rss');
    assert.match(res.body.markdown, /^# Laughs \\&lol3;\n\n## \[Only \\&lol; here\]\(https:\/\/garden\.example\/lol\)/);
    assert.ok(res.body.markdown.length < 200, res.body.markdown);
  });

  test('a feed cut after an item: the items it holds', async () => {
    const res = await fetchPath('/cut-after-an-item');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.markdown, GARDEN_FEED_MARKDOWN.slice(0, GARDEN_FEED_MARKDOWN.indexOf('\n\n## [Watering')));
  });

  test('a feed cut inside a tag: 422 unreadable_document naming the format, not billed', async () => {
    const { apiKey } = await signUp(api);
    const res = await fetchPath('/cut-in-a-tag', withKey(apiKey));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'unreadable_document');
    assert.match(res.body.detail, /the RSS file holds XML that cannot be parsed/);
    const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
    assert.equal(usage.body.credits_used, 0);
  });
});
