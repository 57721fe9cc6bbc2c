// Cache keys: spellings of one request share a key; anything that can change the answer keeps it apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeUrl } from '../../src/net/normalize-url.js';

const SAME: [string, string][] = [
  ['http://Example.COM:80/a#x', 'http://example.com/a'],
  ['HTTPS://example.com:443/', 'https://example.com/'],
  ['https://example.com', 'https://example.com/'],
  ['https://example.com/a?b=1#frag', 'https://example.com/a?b=1'],
  ['https://example.com/a#', 'https://example.com/a'],
  ['https://user:pass@example.com/private', 'https://example.com/private'],
  ['https://BÜCHER.example/', 'https://xn--bcher-kva.example/'],
];

test('scheme and host lower-cased, default port, fragment and userinfo dropped', () => {
  for (const [input, key] of SAME) assert.equal(normalizeUrl(input), key, input);
});

test('path and query are kept as written', () => {
  assert.equal(normalizeUrl('https://example.com/Path/To?b=2&a=1'), 'https://example.com/Path/To?b=2&a=1');
  assert.notEqual(normalizeUrl('https://example.com/?a=1&b=2'), normalizeUrl('https://example.com/?b=2&a=1'));
  assert.notEqual(normalizeUrl('https://example.com/a/'), normalizeUrl('https://example.com/a'));
});

test('a non-default port and the scheme stay part of the key', () => {
  assert.equal(normalizeUrl('http://example.com:8080/'), 'http://example.com:8080/');
  assert.notEqual(normalizeUrl('http://example.com/'), normalizeUrl('https://example.com/'));
});

test('accepts a URL object and leaves it untouched', () => {
  const url = new URL('https://Example.com/x#top');
  assert.equal(normalizeUrl(url), 'https://example.com/x');
  assert.equal(url.hash, '#top');
});
