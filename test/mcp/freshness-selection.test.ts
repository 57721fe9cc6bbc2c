// The MCP tools with max_age, include and exclude (over POST /mcp, against the real pipeline): the same fields, the
// same copy reused, and the same 422 locations as the HTTP API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

test('fetch_url and fetch_multiple take max_age, include and exclude', async (t) => {
  const client = await connectAsNewAccount(t, api);
  const { tools } = await client.listTools();
  for (const name of ['fetch_url', 'fetch_multiple']) {
    const properties = tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, any>;
    assert.equal(properties.max_age.minimum, 0, name);
    assert.deepEqual([properties.include.maxItems, properties.include.items.type], [20, 'string'], name);
    assert.equal(properties.exclude.type, 'array', name);
  }
  const path = `/unique/mcp-selection-${process.pid}-${Date.now()}`;
  const url = site.url(path);
  const first = await client.callTool({ name: 'fetch_url', arguments: { url, include: ['h1'] } });
  assert.equal(first.isError, undefined, textOf(first));
  const page = first.structuredContent as any;
  assert.equal(page.markdown, '# Unique');
  assert.deepEqual(page.fetch_info.selection, { applied: true, included: 1, excluded: null });
  assert.match(page.fetch_info.content_hash, /^[0-9a-f]{32}$/);
  assert.equal(typeof page.cache.age_seconds, 'number');
  const many = await client.callTool({ name: 'fetch_multiple', arguments: { urls: [url], exclude: ['h1'] } });
  const item = (many.structuredContent as any).results[0];
  assert.equal(item.cache.hit, true, textOf(many));
  assert.match(item.markdown, /served at hit 1 /);
  assert.equal(site.hits(path), 1, 'both selections from one fetch');
  const fresh = await client.callTool({ name: 'fetch_url', arguments: { url, max_age: 0 } });
  assert.equal((fresh.structuredContent as any).fetch_info.changed, true, textOf(fresh));
  assert.equal(site.hits(path), 2);
});

test('a broken selector or a negative max_age is a tool error at the HTTP API location', async (t) => {
  const client = await connectAsNewAccount(t, api);
  const url = site.url('/article');
  const broken = await client.callTool({ name: 'fetch_url', arguments: { url, exclude: ['nav', 'a[href'] } });
  assert.equal(broken.isError, true);
  assert.match(textOf(broken), /- body\.exclude\.1: Invalid CSS selector "a\[href"/);
  const negative = await client.callTool({ name: 'fetch_multiple', arguments: { urls: [url], max_age: -1 } });
  assert.equal(negative.isError, true);
  assert.match(textOf(negative), /- body\.max_age: Input should be greater than or equal to 0/);
});
