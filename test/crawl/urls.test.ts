// The crawl's URL form: one spelling per page (fragments, ports, tracking parameters, parameter order, trailing
// slashes), null for what is not an http(s) URL, and the shapes of traps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeCrawlUrl, pathKey, segmentsRepeat } from '../../src/crawl/urls.js';

describe('normalizeCrawlUrl folds spellings of one page', () => {
  const cases: [string, string][] = [
    ['https://example.com/docs#install', 'https://example.com/docs'],
    ['HTTPS://Example.COM/Docs', 'https://example.com/Docs'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://example.com/docs/', 'https://example.com/docs'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/a?', 'https://example.com/a'],
    ['https://example.com/a?utm_source=x&utm_medium=y&UTM_Campaign=z', 'https://example.com/a'],
    ['https://example.com/a?gclid=1&fbclid=2&msclkid=3&mc_cid=4&mc_eid=5', 'https://example.com/a'],
    ['https://example.com/a?_ga=1&ref_src=twsrc&yclid=2&igshid=3&id=7', 'https://example.com/a?id=7'],
    ['https://example.com/a?b=2&a=1&c=3', 'https://example.com/a?a=1&b=2&c=3'],
    ['https://user:secret@example.com/a', 'https://example.com/a'],
  ];
  for (const [input, expected] of cases) {
    test(`${input} → ${expected}`, () => assert.equal(normalizeCrawlUrl(input), expected));
  }

  test('sorting is stable: repeated names keep their order', () => {
    assert.equal(normalizeCrawlUrl('https://e.com/?tag=z&id=1&tag=a'), 'https://e.com/?id=1&tag=z&tag=a');
  });

  test('values stay as written: a bare flag is not given an `=`, escapes are not re-encoded', () => {
    assert.equal(normalizeCrawlUrl('https://e.com/s?q=a%20b&flag&utm_x=1'), 'https://e.com/s?flag&q=a%20b');
  });

  test('a trailing slash goes from the path, not from a query', () => {
    assert.equal(normalizeCrawlUrl('https://e.com/docs/?page=2'), 'https://e.com/docs?page=2');
  });

  test('relative links resolve against the base', () => {
    assert.equal(normalizeCrawlUrl('../guide/#top', 'https://e.com/docs/api/'), 'https://e.com/docs/guide');
    assert.equal(normalizeCrawlUrl('//cdn.e.com/x', 'https://e.com/'), 'https://cdn.e.com/x');
    assert.equal(normalizeCrawlUrl('?b=1&a=2', 'https://e.com/list'), 'https://e.com/list?a=2&b=1');
  });
});

describe('normalizeCrawlUrl refuses what is not an http(s) URL', () => {
  for (const href of [
    'javascript:alert(1)',
    'mailto:me@example.com',
    'tel:+123',
    'data:text/html,hi',
    'ftp://example.com/file',
    'http://',
    'not a url',
  ]) {
    test(href, () => assert.equal(normalizeCrawlUrl(href), null));
  }

  test('a relative link without a base', () => assert.equal(normalizeCrawlUrl('/docs'), null));
});

describe('trap shapes', () => {
  test('pathKey is origin and path, whatever the query', () => {
    assert.equal(pathKey('https://e.com/search?q=1'), 'https://e.com/search');
    assert.equal(pathKey('https://e.com/search?q=2'), pathKey('https://e.com/search?q=1'));
    assert.notEqual(pathKey('https://e.com/search'), pathKey('https://f.com/search'));
  });

  test('segmentsRepeat: a segment seen more than max times', () => {
    assert.equal(segmentsRepeat('https://e.com/a/b/a/b/a/b', 2), true);
    assert.equal(segmentsRepeat('https://e.com/a/b/a/b', 2), false);
    assert.equal(segmentsRepeat('https://e.com/2024/01/01', 2), false);
    assert.equal(segmentsRepeat('https://e.com/x/x/x', 3), false);
    assert.equal(segmentsRepeat('https://e.com/x/x/x/x', 3), true);
  });

  test('segmentsRepeat ignores empty segments and the query', () => {
    assert.equal(segmentsRepeat('https://e.com///a//?p=/a/a/a', 1), false);
  });
});
