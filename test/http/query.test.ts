// POST /fetch and /fetch/batch `query`: the matching part first within max_tokens, the rest by cursor, the cached copy
// reused, search results read by the search query, and 422s that name the field.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { buildTestApp } from '../helpers/test-app.js';

// Set up at the top level: on Node 20 an `after` registered inside `before` runs as soon as that hook ends.
const site = await startFixtureSite();
const searxng = await startSearxngStandin([]);
const api = await buildTestApp({ after }, { SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin });
after(async () => {
  await Promise.all([site.close(), searxng.close()]);
});

const SENTENCE = /Section (\d+) sentence (\d+) explains/g;
const sentencesOf = (markdown: string) => [...markdown.matchAll(SENTENCE)].map((m) => `${m[1]}.${m[2]}`);
/** The sentences of /long, in page order. */
const EVERY_SENTENCE = Array.from({ length: 40 }, (_, i) =>
  Array.from({ length: 6 }, (_, j) => `${i + 1}.${j}`),
).flat();

/** The sentences read by following `cursor` to the end in parts of 400 tokens, each part moving on. */
async function readOn(request: Record<string, unknown>, cursor: string | null): Promise<string[]> {
  const read: string[] = [];
  for (let parts = 0; cursor; parts++) {
    assert.ok(parts < 100, 'the cursors come to an end');
    const next = await api.post('/fetch', { ...request, max_tokens: 400, cursor });
    assert.equal(next.status, 200, next.text);
    assert.ok(next.body.metadata.token_count <= 400);
    assert.notEqual(next.body.next_cursor, cursor, 'each part moves on');
    read.push(...sentencesOf(next.body.markdown));
    cursor = next.body.next_cursor;
  }
  return read;
}

test('with max_tokens: the matching section under its heading path, markers, outline, and a cursor through the rest', async () => {
  const url = site.url('/long?query-read');
  const res = await api.post('/fetch', { url, max_tokens: 150, query: 'what does part 37 explain' });
  assert.equal(res.status, 200, res.text);
  const { markdown, metadata, outline, next_cursor } = res.body;
  assert.ok(metadata.token_count <= 150, `${metadata.token_count}`);
  assert.equal(metadata.truncated, true);
  assert.match(markdown, /^# A Long Guide\n\n\[… \d+ tokens left out …\]\n\n## Part 37\n\nSection 37 sentence 0/);
  assert.ok(
    sentencesOf(markdown).every((s) => s.startsWith('37.')),
    markdown,
  );
  assert.equal(outline[0].title, 'Part 37 (partly shown)');
  assert.ok(outline.some((o: { title: string }) => o.title === 'Part 1'));
  assert.ok(outline.every((o: { tokens: number }) => o.tokens > 0));

  // The cursor reads the rest of the page in page order: every other sentence exactly once, none of the shown ones.
  const shown = sentencesOf(markdown);
  assert.deepEqual(
    await readOn({ url }, next_cursor),
    EVERY_SENTENCE.filter((s) => !shown.includes(s)),
  );
  assert.equal(site.hits('/long'), 1, 'one fetch for the whole read');
});

test('with include or exclude: the cursor of a query part reads on through the selection, never that part again', async () => {
  const url = site.url('/long?query-selection');
  const body = { url, max_tokens: 150, query: 'what does part 37 explain', exclude: ['nav'] };
  const first = await api.post('/fetch', body);
  assert.equal(first.status, 200, first.text);
  assert.match(first.body.markdown, /## Part 37\n\nSection 37 sentence 0/);
  const shown = sentencesOf(first.body.markdown);
  assert.deepEqual(
    await readOn(body, first.body.next_cursor),
    EVERY_SENTENCE.filter((s) => !shown.includes(s)),
  );
});

test('a query the head of the page answers as well reads as a plain head cut, its outline by relevance', async () => {
  const url = site.url('/long?query-head');
  const plain = await api.post('/fetch', { url, max_tokens: 150 });
  const res = await api.post('/fetch', { url, max_tokens: 150, query: 'a long guide' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.markdown, plain.body.markdown);
  assert.equal(res.body.metadata.truncated, true);
  assert.ok(res.body.next_cursor);
  const next = await api.post('/fetch', { url, max_tokens: 150, cursor: res.body.next_cursor });
  assert.equal(next.status, 200, next.text);
  assert.doesNotMatch(next.body.markdown, /Section 1 sentence 0 /, 'reads on after the head');
});

test('a query never refetches: the cached copy serves every query, at the cache price', async () => {
  const url = site.url('/long?query-cache');
  const plain = await api.post('/fetch', { url, max_tokens: 100 });
  assert.equal(plain.status, 200);
  const before = site.hits('/long');
  for (const query of ['part 3', 'part 12 details', 'sentence 5']) {
    const res = await api.post('/fetch', { url, max_tokens: 100, query });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cache.hit, true);
    assert.equal(res.body.credits, plain.body.credits === 1 ? 0.1 : plain.body.credits);
  }
  assert.equal(site.hits('/long'), before, 'no fetch for any query');
});

test('without max_tokens, or with a budget that holds the page, a query changes nothing', async () => {
  const url = site.url('/article');
  const plain = await api.post('/fetch', { url });
  const queried = await api.post('/fetch', { url, query: 'watering' });
  assert.equal(queried.body.markdown, plain.body.markdown);
  assert.deepEqual(queried.body.outline, []);
  const roomy = await api.post('/fetch', { url, query: 'watering', max_tokens: 100_000 });
  assert.equal(roomy.body.markdown, plain.body.markdown);
});

test('reference links: the part carries the definitions of the links it holds', async () => {
  const res = await api.post('/fetch', {
    url: site.url('/article'),
    max_tokens: 150,
    query: 'water deeply, see the watering guide',
    links: 'reference',
  });
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.metadata.token_count <= 150);
  assert.match(
    res.body.markdown,
    /\[watering guide\]\[(\d+)\][\s\S]*\n\[\1\]: http:\/\/127\.0\.0\.1:\d+\/guides\/watering/,
  );
});

test('batch: query applies to each page', async () => {
  const res = await api.post('/fetch/batch', {
    urls: [site.url('/long?batch-a'), site.url('/article')],
    max_tokens_each: 120,
    query: 'part 21',
  });
  assert.equal(res.status, 200, res.text);
  const [long] = res.body.results;
  assert.match(long.markdown, /## Part 21\n\nSection 21 sentence 0/);
  assert.ok(long.metadata.token_count <= 120);
});

test('search: each result is read by the search query', async () => {
  searxng.setMode('ok');
  searxng.setHits([{ title: 'Guide', url: site.url('/long?search'), snippet: 'A long guide' }]);
  const res = await api.post('/search', { query: 'part 33 explains', num_results: 1, max_tokens_each: 150 });
  assert.equal(res.status, 200, res.text);
  assert.match(res.body.results[0].markdown, /## Part 33\n\nSection 33 sentence 0/);
});

test('422s name the field: too short, too long, not a string', async () => {
  const cases: [string, unknown, (string | number)[], string][] = [
    ['/fetch', { url: site.url('/article'), query: 'a' }, ['body', 'query'], 'string_too_short'],
    ['/fetch', { url: site.url('/article'), query: 'x'.repeat(501) }, ['body', 'query'], 'string_too_long'],
    ['/fetch', { url: site.url('/article'), query: 7 }, ['body', 'query'], 'string_type'],
    ['/fetch/batch', { urls: [site.url('/article')], query: 'a' }, ['body', 'query'], 'string_too_short'],
  ];
  for (const [path, body, loc, type] of cases) {
    const res = await api.post(path, body);
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail[0].loc, loc);
    assert.equal(res.body.detail[0].type, type);
  }
});
