// The search providers against their stand-ins: request shape, parsing of each real JSON format, failures as values.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createBraveProvider } from '../../src/search/brave.js';
import { createSearchProvider } from '../../src/search/index.js';
import { createSearxngProvider } from '../../src/search/searxng.js';
import { startBraveStandin, startSearxngStandin, type SearchStandin } from '../helpers/search-standins.js';

const KEY = 'provider-test-key';
let searxng: SearchStandin;
let brave: SearchStandin;

const HITS = [
  {
    title: 'First &amp; <strong>best</strong>',
    url: 'https://one.example/a',
    snippet: 'It is <strong>tomato</strong> season &quot;now&quot;',
  },
  { title: 'Not a web page', url: 'ftp://files.example/x', snippet: 'skipped' },
  { title: 'Second', url: 'http://two.example/b?x=1', snippet: '' },
  { title: 'Third', url: 'https://three.example/', snippet: 'three' },
];

before(async () => {
  searxng = await startSearxngStandin(HITS);
  brave = await startBraveStandin(HITS, KEY);
});
after(async () => {
  await Promise.all([searxng.close(), brave.close()]);
});

test('searxng: q and format=json on /search under the base path, http(s) hits only, cut to count', async () => {
  const provider = createSearxngProvider({ baseUrl: `${searxng.origin}/`, timeoutMs: 2000, userAgent: 'TestAgent/1' });
  const outcome = await provider.search('tomato season', 2);
  assert.ok(outcome.ok);
  assert.deepEqual(
    outcome.results.map((r) => r.url),
    ['https://one.example/a', 'http://two.example/b?x=1'],
  );
  assert.equal(outcome.results[0]!.snippet, 'It is <strong>tomato</strong> season &quot;now&quot;');
  const sent = searxng.requests.at(-1)!;
  assert.equal(sent.path, '/search');
  assert.equal(sent.query.get('q'), 'tomato season');
  assert.equal(sent.query.get('format'), 'json');
  assert.equal(sent.headers['user-agent'], 'TestAgent/1');
});

test('brave: token header, count, and the <strong> markup and entities turned into plain text', async () => {
  const provider = createBraveProvider({ apiKey: KEY, baseUrl: brave.origin, timeoutMs: 2000 });
  const outcome = await provider.search('tomato', 10);
  assert.ok(outcome.ok);
  assert.equal(outcome.results.length, 3);
  assert.deepEqual(outcome.results[0], {
    title: 'First & best',
    url: 'https://one.example/a',
    snippet: 'It is tomato season "now"',
  });
  const sent = brave.requests.at(-1)!;
  assert.equal(sent.headers['x-subscription-token'], KEY);
  assert.equal(sent.query.get('count'), '10');
});

test('brave without a web section means no results', async () => {
  brave.setHits([]);
  const outcome = await createBraveProvider({ apiKey: KEY, baseUrl: brave.origin, timeoutMs: 2000 }).search(
    'nothing',
    3,
  );
  brave.setHits(HITS);
  assert.deepEqual(outcome, { ok: true, results: [] });
});

test('failures are values with an actionable detail that never holds the key', async () => {
  const wrongKey = await createBraveProvider({
    apiKey: 'secret-wrong-key',
    baseUrl: brave.origin,
    timeoutMs: 2000,
  }).search('x', 3);
  assert.equal(wrongKey.ok, false);
  assert.ok(!wrongKey.ok && /brave answered 401: .*SEARCH_API_KEY/.test(wrongKey.failure.detail));
  assert.ok(!wrongKey.ok && !wrongKey.failure.detail.includes('secret-wrong-key'));

  searxng.setMode('error');
  const failing = await createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 2000, userAgent: 'x' }).search(
    'x',
    3,
  );
  searxng.setMode('ok');
  assert.ok(!failing.ok && failing.failure.retryable && /answered 500/.test(failing.failure.detail));

  searxng.setMode('slow');
  const slow = await createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 200, userAgent: 'x' }).search('x', 3);
  searxng.setMode('ok');
  assert.ok(!slow.ok && slow.failure.retryable && /within 200 ms/.test(slow.failure.detail));

  const wrongPath = await createSearxngProvider({
    baseUrl: `${searxng.origin}/nowhere`,
    timeoutMs: 2000,
    userAgent: 'x',
  }).search('x', 3);
  assert.ok(!wrongPath.ok && /answered 404/.test(wrongPath.failure.detail));
});

test('a caller can cancel a search', async () => {
  searxng.setMode('slow');
  const controller = new AbortController();
  const pending = createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 5000, userAgent: 'x' }).search(
    'x',
    3,
    controller.signal,
  );
  setTimeout(() => controller.abort(), 50);
  const outcome = await pending;
  searxng.setMode('ok');
  assert.ok(!outcome.ok && /cancelled/.test(outcome.failure.detail));
});

test('createSearchProvider follows SEARCH_PROVIDER', () => {
  assert.equal(createSearchProvider(loadConfig({})), null);
  assert.equal(
    createSearchProvider(loadConfig({ SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: 'http://searx.local' }))?.name,
    'searxng',
  );
  assert.equal(createSearchProvider(loadConfig({ SEARCH_PROVIDER: 'brave', SEARCH_API_KEY: 'k' }))?.name, 'brave');
});
