// The default token budget of MCP results (MCP_DEFAULT_MAX_TOKENS): over stdio, the real server fetching a page of
// about 100,000 tokens from 127.0.0.1 without max_tokens returns at most the budget, with the outline and a cursor.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { connectStdio } from '../helpers/mcp-client.js';

const SECTIONS = 100;
const paragraph = (section: number, n: number) =>
  `<p>Section ${section}, paragraph ${n}: the harbour town kept its records in ledgers bound ` +
  `in green cloth, and every ` +
  `season the clerks copied the tides, the cargoes, the names of the ships and the weather into them by hand.</p>`;
/** About 100,000 o200k tokens of article: 100 sections of 20 paragraphs, each section under its own heading. */
const HUGE_PAGE = `<!doctype html><html><head><title>The Harbour Ledgers</title></head><body><article><h1>The Harbour Ledgers</h1>${Array.from(
  { length: SECTIONS },
  (_, s) => `<h2>Chapter ${s + 1}</h2>${Array.from({ length: 20 }, (_, n) => paragraph(s + 1, n + 1)).join('')}`,
).join('')}</article></body></html>`;

const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(HUGE_PAGE);
});
site.listen(0, '127.0.0.1');
await new Promise((resolve) => site.once('listening', resolve));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => site.close(() => resolve())));

const ENV = { FETCH_ALLOW_PRIVATE_NETWORKS: '1', CACHE_URL: 'memory://' };

interface Page {
  markdown: string;
  metadata: { token_count: number; total_tokens: number; truncated: boolean };
  outline: { title: string }[];
  next_cursor: string | null;
}

test('fetch_url without max_tokens returns at most the default budget, with the outline and next_cursor', async (t) => {
  const { client } = await connectStdio(t, ENV);
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: `${base}/ledgers` } });
  assert.equal(result.isError, undefined);
  const page = result.structuredContent as Page;
  assert.ok(page.metadata.total_tokens > 90_000, `the page is about 100,000 tokens (${page.metadata.total_tokens})`);
  assert.ok(page.metadata.token_count <= 10_000, `${page.metadata.token_count} tokens`);
  assert.ok(page.metadata.token_count > 9_000, 'the budget is used, not a much smaller default');
  assert.equal(page.metadata.truncated, true);
  assert.ok(page.next_cursor, 'a cursor to read on');
  assert.ok(
    page.outline.some((entry) => entry.title === `Chapter ${SECTIONS}`),
    'the outline names the sections that were cut',
  );

  const next = await client.callTool({
    name: 'fetch_url',
    arguments: { url: `${base}/ledgers`, cursor: page.next_cursor },
  });
  const part = next.structuredContent as Page;
  assert.ok(part.metadata.token_count <= 10_000 && part.markdown.length > 0, 'the next part keeps the budget too');
});

test('a max_tokens of the caller wins over the default budget', async (t) => {
  const { client } = await connectStdio(t, ENV);
  const result = await client.callTool({
    name: 'fetch_url',
    arguments: { url: `${base}/ledgers`, max_tokens: 15_000 },
  });
  const page = result.structuredContent as Page;
  assert.ok(
    page.metadata.token_count > 10_000 && page.metadata.token_count <= 15_000,
    `${page.metadata.token_count} tokens`,
  );
});

test('fetch_multiple shares the budget between its pages; MCP_DEFAULT_MAX_TOKENS sets it', async (t) => {
  const { client } = await connectStdio(t, { ...ENV, MCP_DEFAULT_MAX_TOKENS: '6000' });
  const result = await client.callTool({ name: 'fetch_multiple', arguments: { urls: [`${base}/a`, `${base}/b`] } });
  const { results } = result.structuredContent as { results: Page[] };
  assert.equal(results.length, 2);
  for (const page of results)
    assert.ok(
      page.metadata.token_count <= 3000 && page.metadata.token_count > 2500,
      `${page.metadata.token_count} tokens`,
    );
});

test('the tool descriptions tell the model about the default budget', async (t) => {
  const { client } = await connectStdio(t, ENV);
  const { tools } = await client.listTools();
  for (const name of ['fetch_url', 'fetch_multiple', 'search_and_fetch']) {
    assert.match(tools.find((tool) => tool.name === name)!.description!, /default budget \(10,000 tokens/);
  }
});
