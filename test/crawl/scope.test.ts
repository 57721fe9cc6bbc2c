// A crawl's scope: the start URL's registrable domain (www. is the same site), subdomains and other sites only when
// allowed, include/exclude patterns on the path and query, depth, traps; and patterns that could stall a crawl refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compilePatterns, createScope, type ScopeOptions } from '../../src/crawl/scope.js';

const scope = (options: Partial<ScopeOptions> = {}) =>
  createScope({
    start: 'https://example.com/docs',
    allowSubdomains: false,
    allowExternal: false,
    includePaths: [],
    excludePaths: [],
    maxDepth: 5,
    ...options,
  });

describe('the site', () => {
  test('the start host, the apex and www. are in scope; other subdomains and sites are not', () => {
    const site = scope();
    assert.equal(site.check('https://example.com/docs/api', 1), null);
    assert.equal(site.check('https://www.example.com/pricing', 1), null);
    assert.equal(site.check('http://example.com:8080/a', 1), null);
    assert.equal(site.check('https://blog.example.com/post', 1), 'subdomain');
    assert.equal(site.check('https://example.org/', 1), 'external');
    assert.equal(site.check('https://notexample.com/', 1), 'external');
    assert.equal(site.check('mailto:me@example.com', 1), 'external');
  });

  test('starting on www. is the same site as the apex', () => {
    const site = scope({ start: 'https://www.example.com/' });
    assert.equal(site.check('https://example.com/a', 1), null);
    assert.equal(site.check('https://shop.example.com/a', 1), 'subdomain');
  });

  test('starting on a subdomain keeps that subdomain and the apex', () => {
    const site = scope({ start: 'https://docs.example.co.uk/start' });
    assert.equal(site.check('https://docs.example.co.uk/next', 1), null);
    assert.equal(site.check('https://www.docs.example.co.uk/next', 1), null);
    assert.equal(site.check('https://example.co.uk/', 1), null);
    assert.equal(site.check('https://api.example.co.uk/', 1), 'subdomain');
    assert.equal(site.check('https://other.co.uk/', 1), 'external');
  });

  test('allowSubdomains takes every host of the registrable domain, and no other site', () => {
    const site = scope({ allowSubdomains: true });
    assert.equal(site.check('https://blog.example.com/post', 1), null);
    assert.equal(site.check('https://a.b.example.com/', 1), null);
    assert.equal(site.check('https://example.net/', 1), 'external');
  });

  test('allowExternal takes other sites and subdomains', () => {
    const site = scope({ allowExternal: true });
    assert.equal(site.check('https://example.org/', 1), null);
    assert.equal(site.check('https://blog.example.com/', 1), null);
  });

  test('a private suffix is a boundary: two github.io sites are two sites', () => {
    const site = scope({ start: 'https://alice.github.io/' });
    assert.equal(site.check('https://alice.github.io/repo', 1), null);
    assert.equal(site.check('https://bob.github.io/', 1), 'external');
  });

  test('an IP literal or localhost is a site of its own, any port', () => {
    const ip = scope({ start: 'http://127.0.0.1:4000/' });
    assert.equal(ip.check('http://127.0.0.1:4001/page', 1), null);
    assert.equal(ip.check('http://127.0.0.2/', 1), 'external');
    const local = scope({ start: 'http://localhost:3000/' });
    assert.equal(local.check('http://localhost:3000/a', 1), null);
    assert.equal(local.check('http://127.0.0.1:3000/a', 1), 'external');
  });

  test('a start URL that is not http(s) is refused', () => {
    assert.throws(() => scope({ start: 'ftp://example.com/' }), TypeError);
  });
});

describe('include and exclude', () => {
  test('include: only matching paths (tested on path plus query), but the start URL always', () => {
    const site = scope({ includePaths: ['^/docs/api/', 'lang=en'] });
    assert.equal(site.check('https://example.com/docs', 0), null);
    assert.equal(site.check('https://example.com/docs/api/fetch', 1), null);
    assert.equal(site.check('https://example.com/blog?lang=en', 1), null);
    assert.equal(site.check('https://example.com/docs/guide', 1), 'not_included');
  });

  test('exclude wins over include, and over the start URL', () => {
    const site = scope({ includePaths: ['^/docs'], excludePaths: ['/internal/', '^/docs$'] });
    assert.equal(site.check('https://example.com/docs/public', 1), null);
    assert.equal(site.check('https://example.com/docs/internal/x', 1), 'excluded');
    assert.equal(site.check('https://example.com/docs', 0), 'excluded');
  });

  test('patterns are tested on the path, not the host', () => {
    assert.equal(scope({ excludePaths: ['example'] }).check('https://example.com/a', 1), null);
  });

  test('a pattern compilePatterns refuses cannot make a scope', () => {
    assert.throws(() => scope({ excludePaths: ['ok', '(a+)+'] }), /excludePaths\[1\]/);
  });
});

describe('depth and traps', () => {
  test('depth: up to maxDepth', () => {
    const site = scope({ maxDepth: 2 });
    assert.equal(site.check('https://example.com/a', 2), null);
    assert.equal(site.check('https://example.com/a', 3), 'depth');
  });

  test('a path segment repeated more than maxRepeatedSegments times (2 by default) is a trap', () => {
    assert.equal(scope().check('https://example.com/a/b/a/b', 1), null);
    assert.equal(scope().check('https://example.com/a/b/a/b/a/b', 1), 'trap');
    assert.equal(scope({ maxRepeatedSegments: 3 }).check('https://example.com/a/b/a/b/a/b', 1), null);
  });

  test('a path and query over 2,048 characters is a trap', () => {
    assert.equal(scope().check(`https://example.com/a?q=${'x'.repeat(2000)}`, 1), null);
    assert.equal(scope().check(`https://example.com/a?q=${'x'.repeat(2100)}`, 1), 'trap');
  });
});

describe('compilePatterns', () => {
  test('valid patterns compile; the open ends `.*` are dropped', () => {
    const result = compilePatterns(['^/blog/\\d+/[a-z-]+/?$', '.*docs.*', '.*\\.pdf$', 'a\\.*']);
    assert.ok(result.ok);
    assert.deepEqual(
      result.patterns.map((pattern) => pattern.source),
      ['^\\/blog\\/\\d+\\/[a-z-]+\\/?$', 'docs', '\\.pdf$', 'a\\.*'],
    );
  });

  test('an invalid regular expression is named by its index', () => {
    const result = compilePatterns(['^/ok', '(unclosed']);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.index, 1);
    assert.match(result.message, /not a valid regular expression/);
  });

  test('longer than 300 characters', () => {
    const result = compilePatterns(['a'.repeat(301)]);
    assert.ok(!result.ok);
    assert.match(result.message, /300/);
    assert.ok(compilePatterns(['a'.repeat(300)]).ok);
  });

  for (const pattern of ['(a+)+$', '(a|ab)*c', '(?:x?)*y', '(a)\\1', '(?<n>a)\\k<n>', 'a.*b.*c', '^(a|b)?.*x.*y.*z']) {
    test(`refused as a backtracking risk: ${pattern}`, () => {
      const result = compilePatterns([pattern]);
      assert.ok(!result.ok);
      assert.equal(result.index, 0);
    });
  }

  test('an anchored pattern may repeat twice, an unanchored one once', () => {
    assert.ok(compilePatterns(['^/a/.*/b/.*/c']).ok);
    assert.ok(!compilePatterns(['/a/.*/b/.*/c']).ok);
    assert.ok(compilePatterns(['/a/.*/b']).ok);
  });

  // Accepted patterns' cost is bounded by their shape (patterns.ts counts the worst case's steps); a clock on a shared
  // machine would prove nothing, so this checks they are accepted and answer right on the longest path tested.
  test('what is accepted runs to its answer on the longest path tested', () => {
    const path = '/' + 'a'.repeat(2047);
    const cases: [string, boolean][] = [
      ['(a|a)(a|a)(a|a).*x', true],
      ['^a.*a.*x', false], // the path starts with '/'
      ['a.*x', true],
      ['^[a-z/]+[a-z/]+x', true],
    ];
    for (const [pattern, endsInX] of cases) {
      const result = compilePatterns([pattern]);
      assert.ok(result.ok, pattern);
      assert.equal(result.patterns[0]?.test(path), false, pattern);
      assert.equal(result.patterns[0]?.test(`${path}x`), endsInX, pattern);
    }
  });
});
