// Every validation rule answers 422 in FastAPI's shape, including malformed JSON; nothing here reaches a site.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let api: TestApp;
before(async () => {
  api = await buildTestApp({ after });
});

async function expect422(path: string, body: unknown, loc: (string | number)[], type: string) {
  const res = await api.request('POST', path, body);
  assert.equal(res.status, 422, `${JSON.stringify(body)} → ${res.text}`);
  assert.ok(Array.isArray(res.body.detail), 'detail is a list');
  const issue = res.body.detail.find((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc));
  assert.ok(issue, `no issue at ${JSON.stringify(loc)} in ${res.text}`);
  assert.equal(issue.type, type);
  assert.equal(typeof issue.msg, 'string');
  assert.ok(issue.msg.length > 0);
}

describe('POST /fetch validation', () => {
  test('url is required', () => expect422('/fetch', {}, ['body', 'url'], 'missing'));
  test('url must be a string', () => expect422('/fetch', { url: 42 }, ['body', 'url'], 'string_type'));
  test('url may not be empty', () => expect422('/fetch', { url: '' }, ['body', 'url'], 'string_too_short'));
  test('url at most 2083 characters', () =>
    expect422('/fetch', { url: 'https://example.com/' + 'a'.repeat(2064) }, ['body', 'url'], 'string_too_long'));
  test('url must be http or https', () =>
    expect422('/fetch', { url: 'ftp://example.com/file' }, ['body', 'url'], 'url_scheme'));
  test('url must parse', () => expect422('/fetch', { url: 'not a url' }, ['body', 'url'], 'url_parsing'));
  test('max_tokens at least 1', () =>
    expect422('/fetch', { url: 'https://example.com', max_tokens: 0 }, ['body', 'max_tokens'], 'greater_than_equal'));
  test('max_tokens is an integer', () =>
    expect422('/fetch', { url: 'https://example.com', max_tokens: 'many' }, ['body', 'max_tokens'], 'int_type'));
  test('format is one of three', () =>
    expect422('/fetch', { url: 'https://example.com', format: 'html' }, ['body', 'format'], 'enum'));
  test('use_cache is a boolean', () =>
    expect422('/fetch', { url: 'https://example.com', use_cache: 'sometimes' }, ['body', 'use_cache'], 'bool_type'));
  test('unknown fields are refused', () =>
    expect422('/fetch', { url: 'https://example.com', max_token: 5 }, ['body', 'max_token'], 'extra_forbidden'));
  test('the body must be an object', () => expect422('/fetch', [1, 2], ['body'], 'model_attributes_type'));

  test('several faults are all reported', async () => {
    const res = await api.post('/fetch', { url: '', max_tokens: 0, format: 'pdf' });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail.length, 3);
  });

  test('malformed JSON is a 422, not a 500', async () => {
    const res = await api.request('POST', '/fetch', '{"url": "https://example.com"', {
      'content-type': 'application/json',
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].type, 'json_invalid');
    assert.deepEqual(res.body.detail[0].loc.slice(0, 1), ['body']);
  });

  test('an empty JSON body is a 422', async () => {
    const res = await api.request('POST', '/fetch', '', { 'content-type': 'application/json' });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].type, 'missing');
  });

  test('a non-JSON content type is a 415 with a clear detail', async () => {
    const res = await api.request('POST', '/fetch', 'url=https://example.com', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(res.status, 415);
    assert.equal(res.body.code, 'unsupported_media_type');
  });
});

describe('POST /fetch/batch validation', () => {
  test('urls is required', () => expect422('/fetch/batch', {}, ['body', 'urls'], 'missing'));
  test('at least one URL', () => expect422('/fetch/batch', { urls: [] }, ['body', 'urls'], 'too_short'));
  test('at most 20 URLs', () =>
    expect422(
      '/fetch/batch',
      { urls: Array.from({ length: 21 }, (_, i) => `https://example.com/${i}`) },
      ['body', 'urls'],
      'too_long',
    ));
  test('each URL is checked with its index', () =>
    expect422('/fetch/batch', { urls: ['https://example.com', 'gopher://x'] }, ['body', 'urls', 1], 'url_scheme'));
  test('max_tokens_each at least 1', () =>
    expect422(
      '/fetch/batch',
      { urls: ['https://example.com'], max_tokens_each: 0 },
      ['body', 'max_tokens_each'],
      'greater_than_equal',
    ));
});

describe('query validation', () => {
  for (const path of ['/estimate', '/cache']) {
    test(`GET ${path} needs url`, async () => {
      const res = await api.get(path);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail[0].loc, ['query', 'url']);
      assert.equal(res.body.detail[0].type, 'missing');
    });
    test(`GET ${path} refuses a non-http url`, async () => {
      const res = await api.get(`${path}?url=${encodeURIComponent('file:///etc/passwd')}`);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail[0].loc, ['query', 'url']);
    });
  }
});

describe('unknown routes', () => {
  test('404 with detail and code', async () => {
    const res = await api.get('/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not_found');
  });
});

describe('paths the router refuses before any route', () => {
  // Fastify answered these in a shape of its own ({error, code: FST_ERR_…, message, statusCode}, no request id).
  test('a path that is not valid percent-encoding is 400 bad_request', async () => {
    const res = await api.request('DELETE', '/account/keys/%s%n');
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'bad_request');
    assert.equal(typeof res.body.detail, 'string');
    assert.equal(typeof res.body.request_id, 'string');
  });

  test('a path parameter longer than the router takes is 400 bad_request', async () => {
    const res = await api.get(`/examples/${'x'.repeat(101)}`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'bad_request');
    assert.equal(typeof res.body.request_id, 'string');
  });
});
