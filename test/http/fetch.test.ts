// POST /fetch happy paths: every response field, the three formats, trimming and reading in parts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

describe('POST /fetch', () => {
  test('a budget that cannot hold the next character is a 422, never an empty part with a cursor to the same place', async () => {
    const res = await api.post('/fetch', { url: site.url('/rare.txt'), max_tokens: 2 });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'max_tokens']);
    const enough = await api.post('/fetch', { url: site.url('/rare.txt'), max_tokens: 4 });
    assert.equal(enough.status, 200, enough.text);
    assert.equal(enough.body.markdown, '𪛔');
    assert.ok(enough.body.next_cursor);
  });

  test('takes URLs as browsers do: non-ASCII paths and queries, IDN hosts, | [] {} in the query', async () => {
    const res = await api.post('/fetch', { url: `${site.url('/article')}?q=日本|x[1]&f={a}^b` });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.markdown, /Growing Tomatoes/);
    // Past validation to the site, which has no such page: the site's 404, not a 422.
    const missing = await api.post('/fetch', { url: site.url('/wiki/Bücher') });
    assert.equal(missing.status, 502, missing.text);
    assert.equal(missing.body.code, 'upstream_status');
    const batch = await api.post('/fetch/batch', {
      urls: [`${site.url('/article')}?from=batch`, 'http://bücher.invalid/'],
    });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.results[0].metadata.title, 'Growing Tomatoes on a Balcony');
    assert.equal(batch.body.results[1].error.code, 'upstream_unreachable');
    for (const bad of ['http://exa mple.com/', 'http://example.com/\u0000', 'http://']) {
      const refused = await api.post('/fetch', { url: bad });
      assert.equal(refused.status, 422, bad);
    }
  });

  test('returns the main content as Markdown with every named field', async () => {
    const res = await api.post('/fetch', { url: site.url('/article') });
    assert.equal(res.status, 200);
    const { markdown, metadata, cache, fetch_info } = res.body;
    assert.match(markdown, /^# Growing Tomatoes on a Balcony/);
    assert.match(markdown, /six hours of direct sun/);
    assert.match(markdown, /\| Variety \| Days to harvest \|/);
    assert.match(markdown, /```python\ndef water\(days\):/);
    assert.match(markdown, /> The best fertiliser/);
    assert.match(markdown, /\[watering guide\]\(http:\/\/127\.0\.0\.1:\d+\/guides\/watering\)/);
    assert.match(markdown, /!\[Ripe tomatoes\]\(http:\/\/127\.0\.0\.1:\d+\/img\/tomato\.jpg\)/);
    for (const marker of ['SITE-NAV-MARKER', 'COOKIE-MARKER', 'SIDEBAR-MARKER', 'FOOTER-MARKER', 'data:image']) {
      assert.ok(!markdown.includes(marker), `${marker} leaked into the content`);
    }
    assert.ok(!/\n\n\n/.test(markdown), 'no runs of blank lines');
    assert.equal(metadata.title, 'Growing Tomatoes on a Balcony');
    assert.equal(metadata.description, 'How to grow tomatoes on a balcony.');
    assert.equal(metadata.language, 'en');
    assert.equal(metadata.url, site.url('/article'));
    assert.equal(metadata.status_code, 200);
    assert.match(metadata.content_type, /^text\/html/);
    assert.equal(metadata.token_count, countTokens(markdown));
    assert.equal(metadata.total_tokens, metadata.token_count);
    assert.equal(metadata.truncated, false);
    assert.equal(res.body.next_cursor, null);
    assert.deepEqual(res.body.outline, []);
    assert.equal(cache.hit, false);
    assert.ok(Date.parse(cache.expires_at) - Date.parse(cache.cached_at) === 21600 * 1000);
    assert.equal(fetch_info.fetcher_used, 'html');
    assert.equal(fetch_info.redirects, 0);
    assert.ok(fetch_info.bytes > 1000);
    assert.equal(fetch_info.body_truncated, false);
    assert.equal(typeof fetch_info.fetch_ms, 'number');
    assert.equal(res.body.document, undefined);
  });

  test('format text has no Markdown syntax', async () => {
    const res = await api.post('/fetch', { url: site.url('/article'), format: 'text' });
    assert.equal(res.status, 200);
    const text: string = res.body.markdown;
    assert.match(text, /Growing Tomatoes on a Balcony/);
    assert.match(text, /six hours of direct sun/);
    assert.ok(!/^#/m.test(text), 'no heading marks');
    assert.ok(!text.includes(']('), 'no link syntax');
    assert.ok(!text.includes('```'), 'no code fences');
    assert.equal(res.body.metadata.token_count, countTokens(text));
  });

  test('format json adds typed blocks', async () => {
    const res = await api.post('/fetch', { url: site.url('/article'), format: 'json' });
    assert.equal(res.status, 200);
    assert.match(res.body.markdown, /^# Growing Tomatoes/);
    const blocks: any[] = res.body.document.blocks;
    assert.deepEqual(blocks[0], { type: 'heading', level: 1, text: 'Growing Tomatoes on a Balcony' });
    const table = blocks.find((b) => b.type === 'table');
    assert.deepEqual(table.header, ['Variety', 'Days to harvest']);
    assert.deepEqual(table.rows, [
      ['Cherry', '60'],
      ['Roma', '75'],
    ]);
    const code = blocks.find((b) => b.type === 'code');
    assert.equal(code.language, 'python');
    assert.match(code.code, /def water/);
    const list = blocks.find((b) => b.type === 'list');
    assert.equal(list.ordered, false);
    assert.ok(blocks.some((b) => b.type === 'paragraph' && b.text.includes('six hours')));
    assert.ok(
      res.body.document.links.some((l: any) => l.text === 'watering guide' && l.url.endsWith('/guides/watering')),
    );
  });

  test('publisher Markdown is used as is', async () => {
    const res = await api.post('/fetch', { url: site.url('/markdown') });
    assert.equal(res.status, 200);
    assert.match(res.body.markdown, /^# Served as Markdown/);
    assert.match(res.body.markdown, /\*\*Markdown\*\*/);
    assert.equal(res.body.fetch_info.source_markdown, true);
    assert.equal(res.body.metadata.title, 'Served as Markdown');
  });

  test('plain text and JSON bodies are returned as text', async () => {
    const plain = await api.post('/fetch', { url: site.url('/plain.txt') });
    assert.equal(plain.status, 200);
    assert.match(plain.body.markdown, /Just plain text\.\nSecond line\./);
    const json = await api.post('/fetch', { url: site.url('/data.json') });
    assert.equal(json.status, 200);
    assert.match(json.body.markdown, /```json\n\{"a": 1\}\n```/);
  });

  test('follows redirects and reports the final URL', async () => {
    const res = await api.post('/fetch', { url: site.url('/redirect/3') });
    assert.equal(res.status, 200);
    assert.equal(res.body.metadata.url, site.url('/article'));
    assert.equal(res.body.fetch_info.redirects, 3);
  });

  test('gzip bodies are decoded', async () => {
    const res = await api.post('/fetch', { url: site.url('/gzip') });
    assert.equal(res.status, 200);
    assert.match(res.body.markdown, /Growing Tomatoes/);
  });
});

describe('max_tokens and reading in parts', () => {
  test('trims at a block boundary within the budget and reports what was cut', async () => {
    const full = await api.post('/fetch', { url: site.url('/long') });
    const total = full.body.metadata.total_tokens;
    assert.ok(total > 2000, `long page has ${total} tokens`);
    const res = await api.post('/fetch', { url: site.url('/long'), max_tokens: 300 });
    assert.equal(res.status, 200);
    const { markdown, metadata } = res.body;
    assert.ok(metadata.token_count <= 300);
    assert.equal(metadata.token_count, countTokens(markdown));
    assert.equal(metadata.total_tokens, total);
    assert.equal(metadata.truncated, true);
    assert.ok(full.body.markdown.startsWith(markdown), 'a prefix of the whole content');
    const after = full.body.markdown.slice(markdown.length);
    assert.match(after, /^\n\n/, 'cut at a block boundary');
    assert.equal(res.body.cache.hit, true, 'a different max_tokens is still a cache hit');
    const outline = res.body.outline;
    assert.ok(outline.length > 30);
    assert.deepEqual(Object.keys(outline[0]).sort(), ['level', 'title', 'tokens']);
    assert.equal(outline.at(-1).title, 'Part 40');
    assert.equal(typeof res.body.next_cursor, 'string');
  });

  test('max_chars bounds the length too: parts end at a block boundary and the cursor walks them to the end', async () => {
    const full = await api.post('/fetch', { url: site.url('/long') });
    const parts: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const res = await api.post('/fetch', {
        url: site.url('/long'),
        max_tokens: 5000,
        max_chars: 2000,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.markdown.length <= 2000, `${res.body.markdown.length} characters`);
      assert.equal(res.body.metadata.token_count, countTokens(res.body.markdown));
      if (i === 0) {
        assert.ok(res.body.markdown.length > 1000, 'the characters are used, not a much smaller part');
        assert.match(full.body.markdown.slice(res.body.markdown.length), /^\n\n/, 'cut at a block boundary');
        assert.equal(res.body.metadata.truncated, true);
        assert.equal(res.body.outline.at(-1).title, 'Part 40');
      }
      parts.push(res.body.markdown);
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, 'reached the end');
    assert.ok(parts.length > full.body.markdown.length / 2000, `${parts.length} parts`);
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    assert.equal(squash(parts.join('\n\n')), squash(full.body.markdown));

    const queried = await api.post('/fetch', { url: site.url('/long'), max_chars: 1500, query: 'part twenty' });
    assert.equal(queried.status, 200, queried.text);
    assert.ok(queried.body.markdown.length <= 1500 && queried.body.next_cursor);
    const batch = await api.post('/fetch/batch', { urls: [site.url('/long')], max_chars_each: 700 });
    assert.ok(batch.body.results[0].markdown.length <= 700 && batch.body.results[0].next_cursor);
    const reader = await api.get(`/r/${site.url('/long')}?max_chars=900`);
    assert.equal(reader.status, 200);
    assert.ok(reader.text.length <= 900 && reader.text.length > 0, `${reader.text.length} characters`);
    const tooSmall = await api.post('/fetch', { url: site.url('/long'), max_chars: 1 });
    assert.equal(tooSmall.status, 422, tooSmall.text);
    assert.deepEqual(tooSmall.body.detail[0].loc, ['body', 'max_chars']);
    assert.equal(tooSmall.body.detail[0].type, 'too_small');
  });

  test('a budget smaller than the first block cuts at a token boundary', async () => {
    const res = await api.post('/fetch', { url: site.url('/long'), max_tokens: 3 });
    assert.equal(res.status, 200);
    assert.ok(res.body.metadata.token_count <= 3 && res.body.metadata.token_count >= 1);
    assert.equal(res.body.metadata.truncated, true);
  });

  test('cursors walk the same cached copy to the end', async () => {
    const full = await api.post('/fetch', { url: site.url('/long') });
    const parts: string[] = [];
    let cursor: string | undefined;
    const fetchesBefore = site.hits('/long');
    for (let i = 0; i < 50; i++) {
      const res = await api.post('/fetch', { url: site.url('/long'), max_tokens: 500, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.metadata.token_count <= 500);
      parts.push(res.body.markdown);
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(cursor, undefined, 'reached the end');
    assert.ok(parts.length >= 4);
    assert.equal(site.hits('/long'), fetchesBefore, 'no fresh fetch while paging');
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    assert.equal(squash(parts.join('\n\n')), squash(full.body.markdown));
  });

  test('a foreign, malformed or expired cursor is a 422', async () => {
    const first = await api.post('/fetch', { url: site.url('/long'), max_tokens: 200 });
    const cursor = first.body.next_cursor;
    const foreign = await api.post('/fetch', { url: site.url('/article'), max_tokens: 200, cursor });
    assert.equal(foreign.status, 422);
    assert.deepEqual(foreign.body.detail[0].loc, ['body', 'cursor']);
    assert.match(foreign.body.detail[0].msg, /another URL/);
    const malformed = await api.post('/fetch', { url: site.url('/long'), cursor: 'not-a-cursor' });
    assert.equal(malformed.status, 422);
    assert.match(malformed.body.detail[0].msg, /malformed/);
    const { apiKey } = await signUp(api);
    await api.request('DELETE', `/cache?url=${encodeURIComponent(site.url('/long'))}`, undefined, withKey(apiKey));
    const expired = await api.post('/fetch', { url: site.url('/long'), max_tokens: 200, cursor });
    assert.equal(expired.status, 422);
    assert.match(expired.body.detail[0].msg, /expired/);
  });
});
