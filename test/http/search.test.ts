// POST /search over both provider stand-ins: provider order, trimming, partial failures, limits, provider failures.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import {
  startBraveStandin,
  startSearxngStandin,
  type SearchStandin,
  type StandinHit,
} from '../helpers/search-standins.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const BRAVE_KEY = 'brave-test-key-123';
/** The fixture article's title, whichever of its <title> and <h1> the extractor prefers. */
const TOMATO_TITLE = /Growing Tomatoes on a Balcony|Gardening Notes/;

function hits(paths: string[]): StandinHit[] {
  return paths.map((path, i) => ({
    title: `Result ${i + 1}`,
    url: site.url(path),
    snippet: `Snippet <strong>${i + 1}</strong> &amp; more`,
  }));
}

// Set up at the top level: on Node 20 an `after` registered inside `before` runs as soon as that hook ends.
const site: FixtureSite = await startFixtureSite();
const searxng: SearchStandin = await startSearxngStandin([]);
const brave: SearchStandin = await startBraveStandin([], BRAVE_KEY);
const viaSearxng: TestApp = await buildTestApp(
  { after },
  { SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin },
);
const viaBrave: TestApp = await buildTestApp(
  { after },
  { SEARCH_PROVIDER: 'brave', SEARCH_BASE_URL: brave.origin, SEARCH_API_KEY: BRAVE_KEY },
);
after(async () => {
  await Promise.all([site.close(), searxng.close(), brave.close()]);
});

// Tests grouped by intent.
const group = (_intent: string, body: () => void) => body();

group('happy path', () => {
  test('searxng: results in provider order with their content, and the query sent as the JSON API wants it', async () => {
    searxng.setMode('ok');
    searxng.setHits(hits(['/article', '/long', '/markdown', '/plain.txt']));
    const res = await viaSearxng.post('/search', { query: 'grow tomatoes' });
    assert.equal(res.status, 200);
    assert.equal(res.body.query, 'grow tomatoes');
    assert.equal(res.body.provider, 'searxng');
    assert.equal(res.body.results.length, 3, 'num_results defaults to 3');
    assert.deepEqual(
      res.body.results.map((r: any) => r.url),
      [site.url('/article'), site.url('/long'), site.url('/markdown')],
    );
    const [first, second] = res.body.results;
    assert.equal(first.title, 'Result 1');
    assert.equal(
      first.snippet,
      'Snippet <strong>1</strong> &amp; more',
      'SearXNG snippets are passed through as given',
    );
    assert.match(first.markdown, /Tomatoes need at least six hours/);
    assert.match(first.metadata.title, TOMATO_TITLE);
    assert.equal(first.fetch_info.fetcher_used, 'html');
    assert.equal(typeof first.cache.hit, 'boolean');
    assert.ok(second.metadata.token_count <= 2000, 'trimmed to the default max_tokens_each');
    assert.equal(res.body.credits, 15);
    const sent = searxng.requests.at(-1)!;
    assert.equal(sent.path, '/search');
    assert.equal(sent.query.get('q'), 'grow tomatoes');
    assert.equal(sent.query.get('format'), 'json');
  });

  test('brave: key and count sent, snippets as plain text', async () => {
    brave.setMode('ok');
    brave.setHits(hits(['/article', '/long', '/markdown', '/plain.txt', '/gzip']));
    const res = await viaBrave.post('/search', { query: 'grow tomatoes', num_results: 2 });
    assert.equal(res.status, 200);
    assert.equal(res.body.provider, 'brave');
    assert.deepEqual(
      res.body.results.map((r: any) => r.url),
      [site.url('/article'), site.url('/long')],
    );
    assert.equal(res.body.results[0].snippet, 'Snippet 1 & more');
    assert.match(res.body.results[0].metadata.title, TOMATO_TITLE);
    const sent = brave.requests.at(-1)!;
    assert.equal(sent.path, '/res/v1/web/search');
    assert.equal(sent.query.get('q'), 'grow tomatoes');
    assert.equal(sent.query.get('count'), '2');
    assert.equal(sent.headers['x-subscription-token'], BRAVE_KEY);
    assert.match(String(sent.headers.accept), /application\/json/);
  });

  test('each result is trimmed to max_tokens_each and can be read on with its cursor', async () => {
    searxng.setMode('ok');
    searxng.setHits(hits(['/long']));
    const res = await viaSearxng.post('/search', { query: 'long guide', num_results: 1, max_tokens_each: 100 });
    assert.equal(res.status, 200);
    const [only] = res.body.results;
    assert.ok(only.metadata.token_count <= 100);
    assert.equal(only.metadata.truncated, true);
    assert.ok(only.next_cursor);
    const next = await viaSearxng.post('/fetch', { url: only.url, cursor: only.next_cursor, max_tokens: 100 });
    assert.equal(next.status, 200);
    assert.notEqual(next.body.markdown, only.markdown);
    const short = await viaSearxng.post('/search', { query: 'long guide', num_results: 1, max_chars_each: 300 });
    assert.equal(short.status, 200, short.text);
    assert.ok(short.body.results[0].markdown.length <= 300, 'max_chars_each trims by length as well');
    assert.ok(short.body.results[0].next_cursor);
  });

  test('results beyond three add the html price each; results are fetched concurrently', async () => {
    searxng.setMode('ok');
    const stamp = Date.now();
    searxng.setHits(hits(Array.from({ length: 6 }, (_, i) => `/delay/300/search-${stamp}-${i}`)));
    const res = await viaSearxng.post('/search', { query: 'slow pages', num_results: 5 });
    assert.equal(res.status, 200);
    assert.equal(res.body.results.length, 5, 'cut to num_results although the provider answered 6');
    assert.equal(res.body.credits, 17);
    assert.ok(site.maxConcurrent(`/delay/300/search-${stamp}`) >= 3);
  });

  test('a second search for the same pages is served from the cache', async () => {
    searxng.setMode('ok');
    const path = `/unique/search-cache-${Date.now()}`;
    searxng.setHits(hits([path]));
    await viaSearxng.post('/search', { query: 'cache me', num_results: 1 });
    const res = await viaSearxng.post('/search', { query: 'cache me', num_results: 1 });
    assert.equal(res.body.results[0].cache.hit, true);
    assert.equal(site.hits(path), 1);
  });

  test('no results is an empty list, not an error', async () => {
    brave.setMode('ok');
    brave.setHits([]);
    const res = await viaBrave.post('/search', { query: 'nothing at all' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.results, []);
    assert.equal(res.body.credits, 15);
  });
});

group('partial failures', () => {
  test('a result that cannot be fetched carries its error; the others still arrive', async () => {
    searxng.setMode('ok');
    searxng.setHits(hits(['/article', '/status/404', '/image.png']));
    const res = await viaSearxng.post('/search', { query: 'mixed bag' });
    assert.equal(res.status, 200);
    const [ok, missing, image] = res.body.results;
    assert.match(ok.metadata.title, TOMATO_TITLE);
    assert.deepEqual(Object.keys(missing).sort(), ['error', 'snippet', 'title', 'url']);
    assert.equal(missing.url, site.url('/status/404'));
    assert.equal(missing.title, 'Result 2');
    assert.equal(missing.error.status, 502);
    assert.equal(missing.error.code, 'upstream_status');
    assert.match(missing.error.detail, /404/);
    assert.equal(image.error.status, 422, 'a PNG that is its signature alone cannot be read');
    assert.equal(res.body.credits, 15);
  });

  test('result URLs go through the SSRF guard, the configured provider does not', async (t) => {
    const guarded = await buildTestApp(t, {
      SEARCH_PROVIDER: 'searxng',
      SEARCH_BASE_URL: searxng.origin,
      FETCH_ALLOW_PRIVATE_NETWORKS: '0',
    });
    searxng.setMode('ok');
    searxng.setHits(hits(['/article']));
    const res = await guarded.post('/search', { query: 'private address' });
    assert.equal(res.status, 200, 'the provider on 127.0.0.1 was reached');
    assert.equal(res.body.results[0].error.status, 403);
    assert.equal(res.body.results[0].error.code, 'blocked_url');
  });
});

group('validation', () => {
  const cases: [string, unknown, (string | number)[], string][] = [
    ['query too short', { query: 'a' }, ['body', 'query'], 'string_too_short'],
    ['query too long', { query: 'q'.repeat(501) }, ['body', 'query'], 'string_too_long'],
    ['query missing', { num_results: 3 }, ['body', 'query'], 'missing'],
    ['num_results 0', { query: 'ok', num_results: 0 }, ['body', 'num_results'], 'greater_than_equal'],
    ['num_results 11', { query: 'ok', num_results: 11 }, ['body', 'num_results'], 'less_than_equal'],
    ['num_results not an integer', { query: 'ok', num_results: 2.5 }, ['body', 'num_results'], 'int_type'],
    ['max_tokens_each 99', { query: 'ok', max_tokens_each: 99 }, ['body', 'max_tokens_each'], 'greater_than_equal'],
    ['max_tokens_each 20001', { query: 'ok', max_tokens_each: 20001 }, ['body', 'max_tokens_each'], 'less_than_equal'],
    ['unknown field', { query: 'ok', num_result: 3 }, ['body', 'num_result'], 'extra_forbidden'],
  ];
  for (const [name, body, loc, type] of cases) {
    test(`422 for ${name}`, async () => {
      const before = searxng.requests.length;
      const res = await viaSearxng.post('/search', body);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail[0].loc, loc);
      assert.equal(res.body.detail[0].type, type);
      assert.equal(searxng.requests.length, before, 'the provider was not asked');
    });
  }

  test('the limits themselves are accepted', async () => {
    searxng.setMode('ok');
    searxng.setHits(hits(['/article']));
    for (const body of [
      { query: 'ab', num_results: 1, max_tokens_each: 100 },
      { query: 'q'.repeat(500), num_results: 10, max_tokens_each: 20000 },
    ]) {
      const res = await viaSearxng.post('/search', body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
  });
});

group('provider failures', () => {
  test('search not configured is a 503 naming the variables', async (t) => {
    const bare = await buildTestApp(t);
    const res = await bare.post('/search', { query: 'anything' });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'search_not_configured');
    for (const name of ['SEARCH_PROVIDER', 'SEARCH_BASE_URL', 'SEARCH_API_KEY'])
      assert.match(res.body.detail, new RegExp(name));
  });

  test('a provider answering 500 is a 502 search_failed', async () => {
    searxng.setMode('error');
    const res = await viaSearxng.post('/search', { query: 'broken provider' });
    searxng.setMode('ok');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'search_failed');
    assert.match(res.body.detail, /searxng answered 500/);
  });

  test('a provider answering something other than JSON is a 502 search_failed', async () => {
    brave.setMode('garbage');
    const res = await viaBrave.post('/search', { query: 'garbage' });
    brave.setMode('ok');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'search_failed');
    assert.match(res.body.detail, /not JSON/);
  });

  test('a refused key is a 502 that points at SEARCH_API_KEY and never shows the key', async (t) => {
    const wrong = await buildTestApp(t, {
      SEARCH_PROVIDER: 'brave',
      SEARCH_BASE_URL: brave.origin,
      SEARCH_API_KEY: 'wrong-key-456',
    });
    const res = await wrong.post('/search', { query: 'wrong key' });
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'search_failed');
    assert.match(res.body.detail, /401/);
    assert.match(res.body.detail, /SEARCH_API_KEY/);
    assert.doesNotMatch(res.text, /wrong-key-456/);
  });

  test('a provider that is down is a 502 search_failed', async (t) => {
    const gone = await startSearxngStandin([]);
    const origin = gone.origin;
    await gone.close();
    const api = await buildTestApp(t, { SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: origin });
    const res = await api.post('/search', { query: 'nobody home' });
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'search_failed');
    assert.match(res.body.detail, /could not be reached/);
  });

  test('a provider slower than the deadline is a 502 search_failed', async (t) => {
    const api = await buildTestApp(t, {
      SEARCH_PROVIDER: 'searxng',
      SEARCH_BASE_URL: searxng.origin,
      FETCH_TIMEOUT_MS: '300',
    });
    searxng.setMode('slow');
    const res = await api.post('/search', { query: 'slow provider' });
    searxng.setMode('ok');
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'search_failed');
    assert.match(res.body.detail, /within 300 ms/);
  });
});
