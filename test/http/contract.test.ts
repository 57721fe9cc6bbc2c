// One contract for every surface: the same verdict on the same input over HTTP, MCP and the CLI, errors located in
// the caller's own terms, and a request id on every answer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

describe('errors in the caller’s own terms', () => {
  test('a batch whose max_tokens_each cannot hold a page: that item is a 422 at max_tokens_each', async () => {
    const res = await api.post('/fetch/batch', {
      urls: [site.url('/rare.txt'), site.url('/article')],
      max_tokens_each: 2,
    });
    assert.equal(res.status, 200, res.text);
    const [tooSmall, fine] = res.body.results;
    assert.equal(tooSmall.error.status, 422);
    assert.equal(tooSmall.error.code, 'validation_error');
    assert.deepEqual(tooSmall.error.loc, ['body', 'max_tokens_each']);
    assert.match(tooSmall.error.detail, /^max_tokens_each 2 cannot hold the next character/);
    assert.equal(fine.metadata.token_count <= 2, true);
  });

  test('the MCP tool names its own argument, and refuses "5" for a number as HTTP does', async (t) => {
    const client = await connectAsNewAccount(t, api);
    const batch = await client.callTool({
      name: 'fetch_multiple',
      arguments: { urls: [site.url('/rare.txt')], max_tokens_each: 2 },
    });
    assert.match(textOf(batch), /max_tokens_each 2 cannot hold the next character/);
    assert.deepEqual((batch.structuredContent as any).results[0].error.loc, ['body', 'max_tokens_each']);

    const coerced = await client.callTool({
      name: 'fetch_url',
      arguments: { url: site.url('/article'), max_tokens: '5' },
    });
    assert.equal(coerced.isError, true);
    assert.match(textOf(coerced), /body\.max_tokens: Input should be a valid integer/);
    const http = await api.post('/fetch', { url: site.url('/article'), max_tokens: '5' });
    assert.equal(http.status, 422);
    assert.deepEqual(http.body.detail[0].loc, ['body', 'max_tokens']);
    assert.equal(http.body.detail[0].msg, 'Input should be a valid integer');
  });
});

describe('request ids', () => {
  test('every answer carries X-Request-Id; a plausible incoming one is kept, and error bodies repeat it', async () => {
    const ok = await api.get('/health');
    assert.match(ok.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);

    const mine = await api.request('POST', '/fetch', { url: 'ftp://x' }, { 'x-request-id': 'lb-7f3a.42' });
    assert.equal(mine.status, 422);
    assert.equal(mine.headers.get('x-request-id'), 'lb-7f3a.42');
    assert.equal(mine.body.request_id, 'lb-7f3a.42');

    const hostile = await api.request('GET', '/nowhere', undefined, { 'x-request-id': 'a b<script>' });
    assert.equal(hostile.status, 404);
    const id = hostile.headers.get('x-request-id');
    assert.notEqual(id, 'a b<script>');
    assert.equal(hostile.body.request_id, id);
    assert.equal(hostile.body.code, 'not_found');
  });
});
