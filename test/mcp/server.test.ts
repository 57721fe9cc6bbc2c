// createMcpServer on the SDK's in-memory transport with stand-in operations: how each kind of failure reaches a model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AppError } from '../../src/errors.js';
import type { AgentOperations } from '../../src/operations/agent.js';
import { RemoteApiError } from '../../src/operations/remote.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { textOf } from '../helpers/mcp-client.js';

async function connect(
  t: { after(fn: () => Promise<void>): void },
  fetchUrl: AgentOperations['fetchUrl'],
  logged: unknown[] = [],
) {
  const unused = async () => {
    throw new Error('not used in this test');
  };
  const server = createMcpServer(
    {
      fetchUrl,
      estimate: unused,
      fetchMultiple: unused,
      searchAndFetch: unused,
      mapSite: unused,
      startCrawl: unused,
      crawlStatus: unused,
      cancelCrawl: unused,
      screenshot: unused,
    },
    { logError: (e) => logged.push(e) },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

test('defaults are applied before the operation sees the arguments', async (t) => {
  let seen: unknown;
  const client = await connect(t, async (args) => {
    seen = args;
    throw new AppError('upstream_timeout', 'slow.example did not answer in time');
  });
  await client.callTool({ name: 'fetch_url', arguments: { url: 'https://slow.example/' } });
  assert.deepEqual(seen, {
    url: 'https://slow.example/',
    max_tokens: null,
    max_chars: null,
    format: 'markdown',
    use_cache: true,
    fetcher: 'auto',
    links: 'inline',
    images: 'keep',
    page_markers: false,
  });
});

test('a foreseen error keeps its code, detail and next step', async (t) => {
  const client = await connect(t, async () => {
    throw new AppError('upstream_timeout', 'slow.example did not answer in time', { retryHint: 'retry later' });
  });
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: 'https://slow.example/' } });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined, 'no structured content that would not match the output schema');
  assert.equal(
    textOf(result),
    'Error 504 upstream_timeout: slow.example did not answer in time\nNext step: retry ' +
      'later\n\n{"status":504,"detail":"slow.example did not answer in ' +
      'time","code":"upstream_timeout","retry_hint":"retry later"}',
  );
});

test('an error from a remote API is shown as that API sent it, codes unknown here included', async (t) => {
  const client = await connect(t, async () => {
    throw new RemoteApiError(402, { detail: 'out of credits: buy a pack at /billing', code: 'quota_exceeded' });
  });
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: 'https://a.example/' } });
  assert.match(textOf(result), /^Error 402 quota_exceeded: out of credits: buy a pack at \/billing/);
});

test('an unforeseen error is an opaque internal error for the model and logged for the operator', async (t) => {
  const logged: unknown[] = [];
  const client = await connect(
    t,
    async () => {
      throw new TypeError('secret internal state');
    },
    logged,
  );
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: 'https://a.example/' } });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^Error 500 internal_error: internal error/);
  assert.doesNotMatch(textOf(result), /secret/);
  assert.equal((logged[0] as Error).message, 'secret internal state');
});
