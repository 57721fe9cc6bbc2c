// The checks both transports must pass: the same tools, the same results, the same errors.
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { textOf } from '../helpers/mcp-client.js';

export const TOMATO_TITLE = /Growing Tomatoes on a Balcony|Gardening Notes/;

export async function checkToolList(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['fetch_url', 'estimate_tokens', 'fetch_multiple', 'search_and_fetch', 'map_site', 'crawl_site', 'crawl_status'],
  );
  for (const tool of tools) {
    // crawl_site starts a job billed to the account: the one tool that changes something.
    assert.equal(tool.annotations?.readOnlyHint, tool.name !== 'crawl_site', tool.name);
    assert.equal(tool.annotations?.openWorldHint, true, tool.name);
    assert.ok((tool.description ?? '').length > 100, `${tool.name} has a description a model can choose by`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.outputSchema?.type, 'object');
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.properties as Record<string, any>]));
  // Clients convert arguments by a field's one `type` (the Inspector CLI sent max_tokens "100" for a type union).
  for (const tool of tools) assertSingleTypes(tool.inputSchema, tool.name);
  assert.deepEqual(byName.fetch_url!.max_tokens, { type: 'integer', minimum: 1 });
  for (const [tool, field] of [
    ['fetch_url', 'max_chars'],
    ['fetch_multiple', 'max_tokens_each'],
    ['fetch_multiple', 'max_chars_each'],
    ['search_and_fetch', 'max_chars_each'],
  ] as const)
    assert.deepEqual(
      [byName[tool]![field].type, byName[tool]![field].minimum, byName[tool]![field].default],
      ['integer', 1, undefined],
    );
  assert.deepEqual(byName.fetch_url!.format.enum, ['markdown', 'text', 'json']);
  for (const tool of ['fetch_url', 'fetch_multiple']) {
    assert.deepEqual(
      [byName[tool]!.links.enum, byName[tool]!.links.default],
      [['inline', 'reference', 'none'], 'inline'],
      tool,
    );
    assert.deepEqual([byName[tool]!.images.enum, byName[tool]!.images.default], [['keep', 'none'], 'keep'], tool);
  }
  assert.equal(byName.fetch_multiple!.urls.maxItems, 20);
  assert.deepEqual(
    [
      byName.search_and_fetch!.num_results.minimum,
      byName.search_and_fetch!.num_results.maximum,
      byName.search_and_fetch!.num_results.default,
    ],
    [1, 10, 3],
  );
  assert.deepEqual(
    [byName.search_and_fetch!.max_tokens_each.minimum, byName.search_and_fetch!.max_tokens_each.maximum],
    [100, 20000],
  );
}

/** Every schema in `schema` declares one type, as a string, and no union of schemas. */
function assertSingleTypes(schema: unknown, path: string): void {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Record<string, unknown>;
  if ('type' in node) assert.equal(typeof node.type, 'string', `${path}: type ${JSON.stringify(node.type)}`);
  for (const union of ['anyOf', 'oneOf']) assert.equal(node[union], undefined, `${path}: ${union}`);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties') {
      for (const [name, property] of Object.entries(value as object)) assertSingleTypes(property, `${path}.${name}`);
    } else if (key === 'items') assertSingleTypes(value, `${path}[]`);
  }
}

export async function checkFetchUrl(client: Client, site: FixtureSite): Promise<void> {
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/long'), max_tokens: 120 } });
  assert.equal(result.isError, undefined);
  const s = result.structuredContent as any;
  assert.equal(s.metadata.title, 'A Long Guide');
  assert.ok(s.metadata.token_count <= 120);
  assert.equal(typeof s.cache.hit, 'boolean');
  assert.equal(s.fetch_info.fetcher_used, 'html');
  const text = textOf(result);
  // The page's H1 is the title line, shown once; a part without one is headed by metadata.title.
  assert.ok(s.markdown.startsWith('# A Long Guide\n'), s.markdown.slice(0, 80));
  assert.ok(text.startsWith('# A Long Guide\n\nSource: '), text.slice(0, 80));
  assert.equal(text.split('A Long Guide').length, 2, text.slice(0, 300));
  assert.ok(text.includes(s.markdown.replace(/^# .*\n+/, '')), 'the text carries the rest of the Markdown');
  assert.ok(text.includes(`cursor "${s.next_cursor}"`), 'the text says how to read on');
  const next = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/long'), max_tokens: 120, cursor: s.next_cursor },
  });
  assert.equal(next.isError, undefined);
  assert.notEqual((next.structuredContent as any).markdown, s.markdown);
  assert.ok(textOf(next).startsWith('# A Long Guide\n\nSource: '), textOf(next).slice(0, 80));

  // A cursor reads on only in its own rendering: the hint names the arguments to repeat.
  const styled = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/links-long'), max_tokens: 120, links: 'reference', images: 'none' },
  });
  const cursor = (styled.structuredContent as any).next_cursor;
  assert.match((styled.structuredContent as any).markdown, /\]\[1\][\s\S]*\n\[1\]: http/);
  assert.ok(
    textOf(styled).includes(`cursor "${cursor}", links "reference" and images "none".`),
    textOf(styled).slice(-300),
  );
  const read = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/links-long'), max_tokens: 120, cursor, links: 'reference', images: 'none' },
  });
  assert.equal(read.isError, undefined);
}

export async function checkEstimate(client: Client, site: FixtureSite): Promise<void> {
  const result = await client.callTool({ name: 'estimate_tokens', arguments: { url: site.url('/article') } });
  assert.equal(result.isError, undefined);
  const s = result.structuredContent as any;
  assert.ok(s.estimated_tokens > 0);
  assert.equal(s.confident, true);
  assert.match(textOf(result), new RegExp(`About ${s.estimated_tokens} tokens`));
}

export async function checkFetchMultiple(client: Client, site: FixtureSite): Promise<void> {
  const result = await client.callTool({
    name: 'fetch_multiple',
    arguments: { urls: [site.url('/article'), site.url('/status/404')], max_tokens_each: 50 },
  });
  assert.equal(result.isError, undefined);
  const [page, failed] = (result.structuredContent as any).results;
  assert.match(page.metadata.title, TOMATO_TITLE);
  assert.ok(page.metadata.token_count <= 50);
  assert.equal(failed.error.code, 'upstream_status');
  assert.match(textOf(result), /## 2\. .*\/status\/404\n\nError 502 upstream_status/);
}

/** `credits`: what the search is priced at for the caller (a free account's allowance counts its 3 pages). */
export async function checkSearch(client: Client, credits = 15): Promise<void> {
  const result = await client.callTool({
    name: 'search_and_fetch',
    arguments: { query: 'tomatoes', num_results: 2, max_tokens_each: 100 },
  });
  assert.equal(result.isError, undefined, textOf(result));
  const s = result.structuredContent as any;
  assert.equal(s.results.length, 2);
  assert.match(s.results[0].metadata.title, TOMATO_TITLE);
  assert.ok(s.results.every((r: any) => r.metadata.token_count <= 100));
  assert.equal(s.credits, credits);
  assert.match(textOf(result), /^# Search results for "tomatoes"/);
}

/** Bad input and failing pages come back as isError results with the HTTP error's detail; the server carries on. */
export async function checkErrors(client: Client, site: FixtureSite): Promise<void> {
  const bad = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/article'), max_tokens: 0 } });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /Error 422 validation_error/);
  assert.match(textOf(bad), /body\.max_tokens: Input should be greater than or equal to 1/);
  assert.ok(textOf(bad).includes('"type":"greater_than_equal"'));

  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['fetch_url', {}, /body\.url: Field required/],
    ['fetch_url', { url: 'ftp://example.com/' }, /body\.url: URL scheme should be 'http' or 'https'/],
    ['fetch_url', { url: site.url('/article'), extra: 1 }, /body\.extra: Extra inputs are not permitted/],
    [
      'fetch_multiple',
      { urls: Array.from({ length: 21 }, () => site.url('/article')) },
      /body\.urls: List should have at most 20 items/,
    ],
    ['search_and_fetch', { query: 'x' }, /body\.query: String should have at least 2 characters/],
    [
      'search_and_fetch',
      { query: 'ok', num_results: 11 },
      /body\.num_results: Input should be less than or equal to 10/,
    ],
    ['estimate_tokens', { url: 'not a url' }, /query\.url: Input should be a valid URL/],
  ];
  for (const [name, args, expected] of cases) {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.match(textOf(result), expected);
  }

  const missing = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/status/404') } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /^Error 502 upstream_status: .*404/);
  assert.match(textOf(missing), /Next step: the page does not exist/);

  await assert.rejects(client.callTool({ name: 'fetch_everything', arguments: {} }), /unknown tool "fetch_everything"/);

  const after = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/article') } });
  assert.equal(after.isError, undefined, 'the server still serves after bad input');
}
