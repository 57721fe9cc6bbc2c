// The MCP tools over POST /mcp: `query` (fetch_url, fetch_multiple) listed in the schemas and described by
// fetch_url's description, the matching part first,
// a too-short query as a tool error naming body.query; estimate_tokens and its method.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

test("fetch_url and fetch_multiple take a query; fetch_url's description says what it does", async (t) => {
  const client = await connectAsNewAccount(t, api);
  const { tools } = await client.listTools();
  for (const name of ['fetch_url', 'fetch_multiple']) {
    const query = (tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, any>).query;
    assert.equal(query.type, 'string');
  }
  assert.match(tools.find((tool) => tool.name === 'fetch_url')!.description!, /query: passages answering it first/);

  const one = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/long?mcp'), max_tokens: 150, query: 'part 29' },
  });
  assert.equal(one.isError, undefined, textOf(one));
  const page = one.structuredContent as any;
  assert.match(page.markdown, /## Part 29\n\nSection 29 sentence 0/);
  assert.ok(page.metadata.token_count <= 150);
  assert.match(textOf(one), /Sections not shown:\n {2}- Part 29 \(partly shown\)/);

  const many = await client.callTool({
    name: 'fetch_multiple',
    arguments: { urls: [site.url('/long?mcp-many')], max_tokens_each: 150, query: 'part 8' },
  });
  assert.equal(many.isError, undefined, textOf(many));
  assert.match((many.structuredContent as any).results[0].markdown, /## Part 8\n\nSection 8 sentence 0/);

  for (const name of ['fetch_url', 'fetch_multiple']) {
    const args = name === 'fetch_url' ? { url: site.url('/long') } : { urls: [site.url('/long')] };
    const bad = await client.callTool({ name, arguments: { ...args, query: 'x' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /body\.query: String should have at least 2 characters/);
  }
});

test('estimate_tokens says which method it used, in the result and in the text', async (t) => {
  const client = await connectAsNewAccount(t, api);
  const sampled = await client.callTool({ name: 'estimate_tokens', arguments: { url: site.url('/ranged/scripted') } });
  assert.equal(sampled.isError, undefined, textOf(sampled));
  assert.equal((sampled.structuredContent as any).method, 'sample');
  assert.match(textOf(sampled), /from the first 64 KB, extrapolated to \d+ bytes/);
  const whole = await client.callTool({ name: 'estimate_tokens', arguments: { url: site.url('/article') } });
  assert.equal((whole.structuredContent as any).method, 'whole');
  const gzipped = await client.callTool({
    name: 'estimate_tokens',
    arguments: { url: site.url('/gzipped/script-tail') },
  });
  assert.equal((gzipped.structuredContent as any).method, 'sample_compressed');
  assert.match(textOf(gzipped), /from what the first 64 KB sent compressed decode to, of \d+ bytes sent/);
  const schema = (await client.listTools()).tools.find((tool) => tool.name === 'estimate_tokens')!.outputSchema!;
  assert.deepEqual((schema.properties as any).method.enum, [
    'cache',
    'whole',
    'sample',
    'whole_compressed',
    'sample_compressed',
    'length',
  ]);
});
