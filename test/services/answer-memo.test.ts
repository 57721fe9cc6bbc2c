// Whole answers kept per cached copy: only whole ones, only for budgets they fit, frozen, and a bounded number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FetchResult } from '../../src/contract/fetch.js';
import { createAnswerMemo, isSharedAnswer } from '../../src/services/answer-memo.js';

function answer(totalTokens: number, truncated = false): FetchResult {
  return {
    url: 'https://example.com/',
    markdown: '# Example',
    metadata: {
      title: 'Example',
      description: null,
      language: 'en',
      author: null,
      published_at: null,
      site_name: null,
      canonical_url: null,
      image: null,
      url: 'https://example.com/',
      status_code: 200,
      content_type: 'text/html',
      token_count: truncated ? 1 : totalTokens,
      total_tokens: totalTokens,
      truncated,
    },
    outline: [],
    credits: 0.1,
    next_cursor: truncated ? 'cursor' : null,
    cache: {
      hit: true,
      cached_at: '2026-11-23T00:00:00.000Z',
      expires_at: '2026-11-23T06:00:00.000Z',
      age_seconds: 0,
    },
    fetch_info: {
      fetcher_used: 'html',
      document_type: 'html',
      fetch_ms: 1,
      redirects: 0,
      bytes: 10,
      body_truncated: false,
      source_markdown: false,
      content_hash: '0'.repeat(32),
    },
  };
}

test('a whole answer is kept for its copy and variant, and serves budgets it fits', () => {
  const memo = createAnswerMemo();
  const copy = {};
  const kept = memo.keep(copy, 'markdown', answer(100));
  assert.ok(isSharedAnswer(kept));
  assert.equal(memo.get(copy, 'markdown', null, 0), kept);
  assert.equal(memo.get(copy, 'markdown', 100, 0), kept);
  assert.equal(memo.get(copy, 'markdown', 99, 0), undefined, 'a smaller budget is trimmed per request');
  assert.equal(memo.get(copy, 'text', null, 0), undefined);
  assert.equal(memo.get({}, 'markdown', null, 0), undefined, 'another copy of the page has answers of its own');
});

test('a kept answer serves while the copy is as old as it says, then is made again', () => {
  const memo = createAnswerMemo();
  const copy = {};
  const first = memo.keep(copy, 'markdown', answer(100));
  assert.equal(memo.get(copy, 'markdown', null, 1), undefined, 'a second later the age in it is wrong');
  const later = { ...answer(100), cache: { ...answer(100).cache, age_seconds: 1 } };
  const second = memo.keep(copy, 'markdown', later);
  assert.notEqual(second, first);
  assert.equal(memo.get(copy, 'markdown', null, 1), second, 'the new one replaces it, with no variant more');
});

test('kept answers are frozen through and through', () => {
  const kept = createAnswerMemo().keep({}, 'markdown', answer(100));
  assert.throws(() => {
    (kept as { markdown: string }).markdown = 'changed';
  }, TypeError);
  assert.throws(() => {
    kept.metadata.title = 'changed';
  }, TypeError);
  assert.throws(() => kept.outline.push({ level: 1, title: 'x', tokens: 1 }), TypeError);
});

test('trimmed answers are not kept', () => {
  const memo = createAnswerMemo();
  const copy = {};
  const part = memo.keep(copy, 'markdown', answer(100, true));
  assert.equal(isSharedAnswer(part), false);
  assert.equal(Object.isFrozen(part), false);
  assert.equal(memo.get(copy, 'markdown', null, 0), undefined);
});

test('at most eight variants of one copy are kept', () => {
  const memo = createAnswerMemo();
  const copy = {};
  for (let i = 0; i < 10; i++) memo.keep(copy, `variant ${i}`, answer(100));
  assert.ok(memo.get(copy, 'variant 7', null, 0));
  assert.equal(memo.get(copy, 'variant 8', null, 0), undefined);
});
