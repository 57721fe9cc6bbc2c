// The default budget of MCP results (MCP_DEFAULT_MAX_TOKENS, MCP_DEFAULT_MAX_CHARS): over stdio, the real server
// fetching a page of about 100,000 tokens from 127.0.0.1 without max_tokens returns at most the budget, with the
// outline and a cursor; a page of long words and many headings, whose 10,000 tokens are some 70,000 characters,
// stays within the characters Claude Code shows (50,000) and reads on with the cursor.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { connectStdio, textOf } from '../helpers/mcp-client.js';

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

const CLAUSES = 200;
const longWords =
  'Administrative documentation concerning internationalization, responsibilities, implementation and ' +
  'configuration requirements.';
/** About 16,000 tokens and 120,000 characters: 200 clauses, each under its own heading, of long words. */
const WORDY_PAGE = `<!doctype html><html><head><title>The Regulations</title></head><body><article><h1>The Regulations</h1>${Array.from(
  { length: CLAUSES },
  (_, c) =>
    `<h2>Clause ${c + 1}</h2>${Array.from({ length: 4 }, (_, p) => `<p>Paragraph ${c + 1}.${p + 1}. ${longWords}</p>`).join('')}`,
).join('')}</article></body></html>`;

const site = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.url?.startsWith('/regulations') ? WORDY_PAGE : HUGE_PAGE);
});
site.listen(0, '127.0.0.1');
await new Promise((resolve) => site.once('listening', resolve));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => site.close(() => resolve())));

const ENV = { FETCH_ALLOW_PRIVATE_NETWORKS: '1', CACHE_URL: 'memory://' };

interface Page {
  markdown: string;
  metadata: { token_count: number; total_tokens: number; truncated: boolean };
  outline: { level: number; title: string; tokens: number }[];
  next_cursor: string | null;
}

/** What clients measure: the JSON of structuredContent (which Claude Code hands the model) and the text. */
function sizes(result: object): { json: number; text: number } {
  return {
    json: JSON.stringify((result as { structuredContent?: unknown }).structuredContent).length,
    text: textOf(result).length,
  };
}

/** The clause numbers of a part's headings. */
const clausesOf = (markdown: string) => [...markdown.matchAll(/^## Clause (\d+)$/gm)].map((m) => Number(m[1]));

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

test('a page whose 10,000 tokens are 70,000 characters: the result stays within 48,000 characters and reads on', async (t) => {
  const { client } = await connectStdio(t, ENV);
  const url = `${base}/regulations`;
  const result = await client.callTool({ name: 'fetch_url', arguments: { url } });
  assert.equal(result.isError, undefined, textOf(result));
  const page = result.structuredContent as Page;
  const { json, text } = sizes(result);
  assert.ok(json <= 48_000 && text <= 48_000, `JSON ${json} and text ${text} characters`);
  assert.ok(json > 40_000, `the budget is used (${json})`);
  assert.ok(page.metadata.token_count < 10_000, 'characters ran out before tokens');
  assert.equal(page.metadata.truncated, true);
  assert.ok(page.next_cursor);
  const shown = clausesOf(page.markdown);
  assert.deepEqual(
    shown,
    Array.from({ length: shown.length }, (_, i) => i + 1),
    'clauses from the first on',
  );
  // The outline keeps its first sections and folds the rest into one entry that still names how many.
  const last = page.outline.at(-1)!;
  const folded = /^… (\d+) more sections$/.exec(last.title);
  assert.ok(folded, `the outline ends with the sections folded: ${last.title}`);
  const listed = page.outline.filter((entry) => /^Clause \d+$/.test(entry.title)).map((e) => Number(e.title.slice(7)));
  assert.deepEqual(
    listed,
    Array.from({ length: listed.length }, (_, i) => shown.at(-1)! + 1 + i),
    'the next clauses, in order',
  );
  assert.equal(listed.length + Number(folded[1]), CLAUSES - shown.at(-1)!, 'every clause cut is accounted for');
  assert.ok(last.tokens > 0);
  assert.match(textOf(result), /Trimmed\. To read on, call fetch_url with url ".+" and cursor "/);
  assert.ok(textOf(result).includes(`- ${last.title} (${last.tokens} tokens)`), 'the text shows the same outline');

  const next = await client.callTool({ name: 'fetch_url', arguments: { url, cursor: page.next_cursor } });
  const part = next.structuredContent as Page;
  const more = sizes(next);
  assert.ok(more.json <= 48_000 && more.text <= 48_000, `the next part too: ${more.json} and ${more.text}`);
  const then = clausesOf(part.markdown);
  assert.ok(then.length > 0);
  assert.deepEqual(
    [...shown, ...then],
    Array.from({ length: shown.length + then.length }, (_, i) => i + 1),
    'the cursor reads on where the first part ended, nothing skipped or repeated',
  );
});

test('format json, fetch_multiple and a smaller MCP_DEFAULT_MAX_CHARS keep to the character budget', async (t) => {
  const { client } = await connectStdio(t, { ...ENV, MCP_DEFAULT_MAX_CHARS: '20000' });
  const json = await client.callTool({ name: 'fetch_url', arguments: { url: `${base}/regulations`, format: 'json' } });
  assert.ok((json.structuredContent as { document?: unknown }).document, 'typed blocks besides the Markdown');
  const batch = await client.callTool({
    name: 'fetch_multiple',
    arguments: { urls: [`${base}/regulations?a`, `${base}/regulations?b`, `${base}/ledgers`] },
  });
  const { results } = batch.structuredContent as { results: Page[] };
  for (const page of results) assert.ok(page.next_cursor && page.markdown.length > 0, 'each page trimmed, not dropped');
  for (const result of [json, batch]) {
    const { json: chars, text } = sizes(result);
    assert.ok(chars <= 20_000 && text <= 20_000, `JSON ${chars} and text ${text} characters`);
  }
});

test('a size the caller sets wins; the tools tell Claude Code how long a result it may show', async (t) => {
  const { client } = await connectStdio(t, ENV);
  const result = await client.callTool({
    name: 'fetch_url',
    arguments: { url: `${base}/regulations`, max_tokens: 9_000 },
  });
  const page = result.structuredContent as Page;
  assert.ok(page.metadata.token_count > 8_500, `${page.metadata.token_count} tokens, as asked`);
  assert.ok(sizes(result).json > 50_000, 'longer than the default budget: the caller asked for it');
  const chars = await client.callTool({
    name: 'fetch_url',
    arguments: { url: `${base}/regulations`, max_chars: 5_000 },
  });
  assert.ok((chars.structuredContent as Page).markdown.length <= 5_000);

  const { tools } = await client.listTools();
  const meta = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.['anthropic/maxResultSizeChars']]));
  assert.deepEqual(meta, {
    fetch_url: 100_000,
    estimate_tokens: undefined,
    fetch_multiple: 100_000,
    search_and_fetch: 100_000,
    map_site: 100_000,
    crawl_site: undefined,
    crawl_status: 100_000,
  });
});
