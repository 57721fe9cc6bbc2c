// `pages` and `page_markers` through the public interface: POST /fetch, the batch and GET /r/ read part of a PDF from
// the fixture site, mark its pages on request, cache a part apart from the whole, and refuse bad ranges where the
// caller put them; HTML pages ignore both fields. Also through MCP's fetch_url.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFetcherSite, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FetcherSite;
let api: TestApp;
before(async () => {
  site = await startFetcherSite();
  api = await buildTestApp({ after });
});
after(() => site.close());

const fetchReport = (extra: Record<string, unknown> = {}) =>
  api.post('/fetch', { url: site.url('/report.pdf'), ...extra });

describe('page markers', () => {
  test('none by default; page_markers marks each page with its number, and text gets form feeds', async () => {
    const plain = await fetchReport();
    assert.equal(plain.status, 200, plain.text);
    assert.doesNotMatch(plain.body.markdown, /<!-- page/);
    const marked = await fetchReport({ page_markers: true });
    assert.equal(marked.status, 200, marked.text);
    assert.equal(marked.body.cache.hit, false, 'a marked copy is not the plain one');
    assert.match(marked.body.markdown, /<!-- page 1 -->[\s\S]*<!-- page 2 -->\n\n## Two columns of notes/);
    const text = await fetchReport({ page_markers: true, format: 'text', use_cache: false });
    assert.equal(text.body.markdown.split('\f').length, 3);
  });
});

describe('pages', () => {
  test('reads only the pages asked for, cached apart from the whole document', async () => {
    const part = await fetchReport({ pages: '2-3', page_markers: true });
    assert.equal(part.status, 200, part.text);
    assert.match(part.body.markdown, /<!-- page 2 -->\n\n## Two columns of notes/);
    assert.match(part.body.markdown, /<!-- page 3 -->\n\n## Pests/);
    assert.doesNotMatch(part.body.markdown, /Sun and soil/);
    assert.equal(part.body.metadata.page_count, 3);
    assert.equal(part.body.metadata.truncated, false);
    const whole = await fetchReport({ page_markers: true });
    assert.match(whole.body.markdown, /Sun and soil/);
    const again = await fetchReport({ pages: '2-3', page_markers: true });
    assert.equal(again.body.cache.hit, true);
    assert.doesNotMatch(again.body.markdown, /Sun and soil/);
  });

  test('a single page and a list; pages past the end are left out', async () => {
    const res = await fetchReport({ pages: '3, 1, 7-9' });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.markdown, /## Sun and soil[\s\S]*## Pests/);
    assert.doesNotMatch(res.body.markdown, /Two columns of notes/);
  });

  test('only pages past the end: 422 empty_content naming the page count, not cached', async () => {
    const res = await fetchReport({ pages: '5-9' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'empty_content');
    assert.match(res.body.detail, /has 3 pages, none of pages 5-9/);
  });

  for (const [pages, message] of [
    ['0', /counted from 1/],
    ['3-1', /The range 3-1 ends before it starts/],
    ['1-2,x', /"x" is not a page or a range/],
    ['', /at least 1 character/],
  ] as const) {
    test(`${JSON.stringify(pages)} is a 422 at body.pages (POST /fetch) and query.pages (GET /r/)`, async () => {
      const res = await fetchReport({ pages });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'pages']);
      assert.match(res.body.detail[0].msg, message);
      if (pages === '') return;
      const reader = await api.request(
        'GET',
        `/r/${site.url('/report.pdf')}?pages=${encodeURIComponent(pages)}`,
        undefined,
        {
          accept: 'application/json',
        },
      );
      assert.equal(reader.status, 422, reader.text);
      assert.deepEqual(reader.body.detail[0].loc, ['query', 'pages']);
    });
  }

  test('GET /r/ and the batch take pages and page_markers too', async () => {
    const reader = await api.get(`/r/${site.url('/report.pdf')}?pages=3&page_markers=true`);
    assert.equal(reader.status, 200, reader.text);
    assert.match(reader.text, /^<!-- page 3 -->\n\n## Pests/m);
    assert.doesNotMatch(reader.text, /Sun and soil/);
    const batch = await api.post('/fetch/batch', { urls: [site.url('/report.pdf')], pages: '1' });
    assert.equal(batch.status, 200, batch.text);
    assert.match(batch.body.results[0].markdown, /Sun and soil/);
    assert.doesNotMatch(batch.body.results[0].markdown, /Pests/);
    const bad = await api.post('/fetch/batch', { urls: [site.url('/report.pdf')], pages: '2-1' });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['body', 'pages']);
  });

  test('an HTML page ignores pages and page_markers', async () => {
    const whole = await api.post('/fetch', { url: site.url('/article') });
    const asked = await api.post('/fetch', { url: site.url('/article'), pages: '2', page_markers: true });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.markdown, whole.body.markdown);
  });
});

describe('MCP fetch_url', () => {
  test('takes pages and page_markers, and refuses a bad range at body.pages', async (t) => {
    const client = await connectAsNewAccount(t, api);
    const { tools } = await client.listTools();
    const properties = tools.find((tool) => tool.name === 'fetch_url')!.inputSchema.properties as Record<string, any>;
    assert.equal(properties.pages.type, 'string');
    assert.equal(properties.page_markers.type, 'boolean');
    const url = site.url('/report.pdf');
    const part = await client.callTool({ name: 'fetch_url', arguments: { url, pages: '2', page_markers: true } });
    assert.equal(part.isError, undefined, textOf(part));
    const page = part.structuredContent as { markdown: string };
    assert.match(page.markdown, /<!-- page 2 -->\n\n## Two columns of notes/);
    assert.doesNotMatch(page.markdown, /Pests/);
    const bad = await client.callTool({ name: 'fetch_url', arguments: { url, pages: '4-2' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /- body\.pages: The range 4-2 ends before it starts/);
  });
});
