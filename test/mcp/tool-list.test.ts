// The tool list as MCP clients get it: within issue 36's token budget (bench/mcp-tools.ts prints the figures), and its
// compact input schemas share the HTTP API's fields, values, defaults and numeric limits, while a call is still
// checked against the full schema (the HTTP API's error for a string past its length).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOOLS } from '../../src/contract/tools.js';
import { measureToolList, TOOL_LIST_TARGET } from '../../bench/tool-list-cost.js';
import { signUp, withKey } from '../helpers/accounts.js';
import { connectHttp, textOf } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';

test(`the tool list costs a client's model under ${TOOL_LIST_TARGET} tokens`, () => {
  const { tools, total } = measureToolList();
  assert.equal(tools.length, TOOLS.length);
  assert.ok(total < TOOL_LIST_TARGET, `${total} tokens: ${tools.map((t) => `${t.name} ${t.tokens}`).join(', ')}`);
});

type Field = Record<string, unknown>;

test('the compact input schemas keep every field with its type, values, default and numeric limits', async (t) => {
  const api = await buildTestApp(t);
  const client = await connectHttp(t, api.base, withKey((await signUp(api)).apiKey));
  const { tools } = await client.listTools();
  for (const tool of TOOLS) {
    const full = tool.inputSchema.properties as Record<string, Field>;
    const listed = tools.find((t) => t.name === tool.name)!.inputSchema.properties as Record<string, Field>;
    assert.deepEqual(Object.keys(listed), Object.keys(full), tool.name);
    for (const [name, field] of Object.entries(full))
      // A string-or-number field (wait_for) is listed as a string, without the number's limits (mcp-input-schema.ts).
      if (listed[name]!.type === field.type || (Array.isArray(field.type) && field.type.includes('null')))
        for (const keyword of ['enum', 'minimum', 'maximum', 'maxItems'])
          assert.deepEqual(listed[name]![keyword], field[keyword], `${tool.name}.${name}.${keyword}`);
    assert.ok(!JSON.stringify(listed).includes('"description"'), `${tool.name}: no field descriptions`);
    assert.ok(!JSON.stringify(listed).includes('"examples"'), `${tool.name}: no examples`);
  }
  const fetchUrl = tools.find((t) => t.name === 'fetch_url')!.inputSchema.properties as Record<string, Field>;
  assert.deepEqual(fetchUrl.format, { type: 'string', enum: ['markdown', 'text', 'json'], default: 'markdown' });
  assert.deepEqual(fetchUrl.actions, { maxItems: 20, type: 'array', items: { type: 'object' } });

  // The lengths the list leaves out are still checked, with the HTTP API's error.
  const long = await client.callTool({
    name: 'fetch_url',
    arguments: { url: 'https://example.com/', query: 'x'.repeat(501) },
  });
  assert.equal(long.isError, true);
  assert.match(textOf(long), /body\.query: String should have at most 500 characters/);
});
