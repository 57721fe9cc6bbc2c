// POST /mcp without initialize: each request stands alone (the transport is stateless), so a client may send
// tools/list or tools/call first, with the MCP-Protocol-Version header of the newest revision the SDK serves; a
// revision the SDK does not know is refused with the list of those it does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();
const key = withKey((await signUp(api)).apiKey);

const post = (version: string, id: number, method: string, params: object = {}) =>
  api.request('POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id, method, params }), {
    ...key,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
  });

test('the SDK serves the revisions docs/api.md names (a new SDK: update them together)', () => {
  assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
  assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS, ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
});

test('a bare tools/list and tools/call answer without initialize', async () => {
  const list = await post(LATEST_PROTOCOL_VERSION, 1, 'tools/list');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.id, 1);
  assert.equal(list.body.result.tools.length, 7);

  const call = await post(LATEST_PROTOCOL_VERSION, 2, 'tools/call', {
    name: 'fetch_url',
    arguments: { url: site.url('/article') },
  });
  assert.equal(call.status, 200, JSON.stringify(call.body));
  assert.equal(call.body.result.isError, undefined, JSON.stringify(call.body.result));
  assert.match(call.body.result.structuredContent.metadata.title, /Tomato|Garden/);
  const templates = await post(LATEST_PROTOCOL_VERSION, 3, 'resources/templates/list');
  assert.equal(templates.body.result.resourceTemplates[0].uriTemplate, 'fetchdown://fetch/{+url}');
});

test('a revision the SDK does not serve yet (2026-07-28) is a 400 naming those it does', async () => {
  const res = await post('2026-07-28', 1, 'tools/list');
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /Unsupported protocol version: 2026-07-28 \(supported versions: 2025-11-25, /);
});
