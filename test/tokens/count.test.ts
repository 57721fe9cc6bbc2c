// countTokens against tiktoken (the o200k_base reference) on every benchmark page, raw and extracted, and on the
// characters where gpt-tokenizer alone would differ.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, test } from 'node:test';
import { get_encoding } from 'tiktoken';
import {
  countTokens,
  countTokensUpTo,
  fitTokens,
  LONG_RUN,
  MAX_LETTER_RUN,
  MAX_OTHER_RUN,
} from '../../src/tokens/count.js';

const BENCH = join(import.meta.dirname, '../../../shared/bench/extraction/scrapinghub');
const truth = JSON.parse(readFileSync(join(BENCH, 'ground-truth.json'), 'utf8')) as Record<
  string,
  { articleBody: string }
>;
const ids = Object.keys(truth);

const tiktoken = get_encoding('o200k_base');
after(() => tiktoken.free());
const reference = (text: string) => tiktoken.encode(text).length;
const referenceOrdinary = (text: string) => tiktoken.encode_ordinary(text).length;

/** The page with U+FEFF put at the start, after a space, before a newline and between letters, plus one U+0085. */
function withBoms(text: string): string {
  const space = Math.max(0, text.indexOf(' ', text.length >> 1) + 1);
  const newline = Math.max(0, text.indexOf('\n', text.length >> 2));
  const letters = Math.max(0, text.search(/\p{L}\p{L}/u) + 1);
  const cuts = [...new Set([0, letters, newline, space])].sort((a, b) => a - b);
  let out = '';
  let last = 0;
  for (const cut of cuts) {
    out += text.slice(last, cut) + '\uFEFF';
    last = cut;
  }
  return `${out}${text.slice(last)} \u0085end`;
}

test('the benchmark is all there', () => {
  assert.equal(ids.length, 181);
});

test('every article body counts exactly as tiktoken, also with U+FEFF inserted', () => {
  for (const id of ids) {
    const body = truth[id]!.articleBody;
    assert.equal(countTokens(body), reference(body), id);
    const bom = withBoms(body);
    assert.equal(countTokens(bom), reference(bom), `${id} with U+FEFF`);
  }
});

/** Runs longer than countTokens counts exactly (indentation, inline base64) cut to the longest it does. */
function capRuns(text: string): string {
  return text.replace(LONG_RUN, (run) =>
    Array.from(run)
      .slice(0, (/\s/.test(run[0]!) || !/\p{L}|\p{M}/u.test(run[0]!) ? MAX_OTHER_RUN : MAX_LETTER_RUN) - 1)
      .join(''),
  );
}

test('every raw HTML page counts exactly as tiktoken, also with U+FEFF inserted (runs cut to the exact limit)', () => {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // keep a page's own BOM: it is part of the test
  for (const id of ids) {
    const html = capRuns(decoder.decode(gunzipSync(readFileSync(join(BENCH, 'html', `${id}.html.gz`)))));
    assert.equal(countTokens(html), reference(html), id);
    const bom = withBoms(html);
    assert.equal(countTokens(bom), reference(bom), `${id} with U+FEFF`);
  }
});

test('the characters where gpt-tokenizer disagrees with tiktoken count as in tiktoken', () => {
  const cases = [
    '\uFEFF',
    '\uFEFF\uFEFF',
    'a\uFEFFb',
    '\n\uFEFF\n',
    ' \uFEFF',
    '\uFEFF ',
    '  \uFEFF',
    '\u00A0\u00A0\uFEFF',
    '  1\uFEFF',
    '\u0085',
    'a\u0085b',
    '\n\u0085\n',
    ' \u0085x',
    '\u3000\u3000\u0085',
    'x \u0085 y',
    "it'ſ",
    '"\'ſ',
    "  'ſ",
    'ſtraße',
    // letters, marks and digits new in Unicode 17, unknown to tiktoken's tables
    'a\u088Fb',
    'x\u1AD0y',
    'Z\uA7CE\uA7CFs',
    '\u{10940}\u{10959}',
    '1\u{11DE0}2',
    '\u{16EA0}\u{16EBB}',
    '  \u{323B0}',
    'end\u{33479}.',
    "\u{1E6C0}'s",
    '\u{2B73A}\u{2CEA2}',
    '\uA7F1\u{16FF2}',
    // lone surrogates are encoded as U+FFFD by both
    '\uD800',
    'a\uDC00b',
    '\uD83D ok',
  ];
  for (const text of cases) assert.equal(countTokens(text), reference(text), JSON.stringify(text));
});

test('random mixes of tricky characters count as in tiktoken', () => {
  const pieces = [
    'a',
    'B',
    'é',
    '1',
    '234',
    ' ',
    '  ',
    '\n',
    '\n\n',
    '\t',
    '\r\n',
    '.',
    ',',
    "'s",
    "'S",
    "'ſ",
    'ſ',
    '-',
    '/',
    '你好',
    '😀',
    '👍🏽',
    '\u00A0',
    '\u0085',
    '\uFEFF',
    '\u2028',
    '\u3000',
    '\u200B',
    '\u0301',
    'Ω',
    '"',
    '\u088F',
    '\u{323B0}',
    '\u1AD0',
    '\u{11DE0}',
    '\uA7CE',
    '<|endoftext|>',
    '\uD800',
    "'re",
    'Hello',
    ' world',
    '```',
    '| a |',
  ];
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20_000; i++) {
    let text = '';
    for (let n = 1 + Math.floor(random() * 16); n > 0; n--) text += pieces[Math.floor(random() * pieces.length)];
    assert.equal(countTokens(text), referenceOrdinary(text), JSON.stringify(text));
  }
});

test('special-token strings in a page are plain text', () => {
  for (const text of ['<|endoftext|>', 'before <|endofprompt|> after', '<|im_start|>user']) {
    assert.equal(countTokens(text), referenceOrdinary(text), text);
  }
});

test('countTokensUpTo is exact within the limit and stops above it', () => {
  const text = truth[ids[0]!]!.articleBody;
  const total = countTokens(text);
  assert.equal(countTokensUpTo(text, total), total);
  assert.equal(countTokensUpTo(text, total + 10), total);
  assert.ok(countTokensUpTo(text, total - 1) > total - 1);
  assert.ok(countTokensUpTo(text, 5) > 5);
});

test('fitTokens ends on a character boundary within the budget', () => {
  const text = '你好世界，这是一个测试。😀👍🏽 Emoji and 𠀀𪛔 rare ideographs, \uFEFF and more. '.repeat(40);
  for (let budget = 1; budget <= 120; budget++) {
    const end = fitTokens(text, budget);
    const prefix = text.slice(0, end);
    assert.ok(countTokens(prefix) <= budget, `budget ${budget}`);
    assert.ok(!/[\uD800-\uDBFF]$/.test(prefix), `budget ${budget}: no half of a surrogate pair`);
    assert.ok(budget < 8 || countTokens(prefix) >= budget - 4, `budget ${budget}: the cut uses most of the budget`);
  }
});

// Unsliced, one such page took minutes (the encoding is quadratic in a piece's length); sliced, all six take about a
// second here. The test's own timeout, far above that, stands for "linear": no elapsed time is asserted.
test(
  'a page of one endless run (letters, spaces, punctuation) counts in linear time, close to tiktoken',
  { timeout: 120_000 },
  () => {
    for (const unit of ['a', ' ', '\n', '!', 'é', '\u{1F600}']) {
      const count = countTokens(unit.repeat(1_000_000));
      assert.ok(count > 0);
      const sample = unit.repeat(3000);
      const exact = referenceOrdinary(sample);
      assert.ok(
        Math.abs(countTokens(sample) - exact) <= Math.ceil(exact * 0.02),
        `${JSON.stringify(unit)}: ${countTokens(sample)} vs ${exact}`,
      );
    }
    // Trimming over such a run stays within budget.
    const end = fitTokens(`intro ${'b'.repeat(500_000)}`, 1000);
    assert.ok(countTokens(`intro ${'b'.repeat(500_000)}`.slice(0, end)) <= 1000);
  },
);
