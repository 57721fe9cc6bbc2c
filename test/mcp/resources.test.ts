// Pages as MCP resources over POST /mcp (the SDK's client, with a key): a trimmed fetch_url or fetch_multiple result
// links to the rest of its page, resources/read returns the next part (as fetch_url with the cursor would) and a link
// to the one after; the template fetchdown://fetch/{+url} reads a URL with the default budget; a cursor that is
// malformed or whose copy is gone is the protocol's InvalidParams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { NEXT_META_KEY } from '../../src/mcp/pages.js';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { connectHttp, textOf } from '../helpers/mcp-client.js';
import { startSiteAndApp } from '../helpers/test-app.js';

// A small default budget, so that a page read without a size is trimmed too.
const { site, api } = await startSiteAndApp({ MCP_DEFAULT_MAX_TOKENS: '300' });
const { apiKey } = await signUp(api);
// Reading a page to its end takes more requests than the free plan's 60 a minute.
await setPlan(api, apiKey, 'pro');

type Item = { type: string; uri?: string; mimeType?: string; name?: string };
const linksOf = (result: object) =>
  (result as { content: Item[] }).content.filter((item) => item.type === 'resource_link');

async function read(client: Client, uri: string) {
  const result = await client.readResource({ uri });
  const [content] = result.contents as { uri: string; mimeType: string; text: string }[];
  return { content: content!, next: result._meta?.[NEXT_META_KEY] as string | undefined };
}

test('a trimmed fetch_url links to the rest, which resources/read returns part by part', async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const url = site.url('/long');
  const first = await client.callTool({ name: 'fetch_url', arguments: { url, max_tokens: 120 } });
  const page = first.structuredContent as { next_cursor: string; markdown: string };
  const [link, ...others] = linksOf(first);
  assert.equal(others.length, 0);
  assert.equal(link!.mimeType, 'text/markdown');
  assert.ok(link!.uri!.startsWith(`fetchdown://pages/${page.next_cursor}?`), link!.uri);
  assert.equal(new URL(link!.uri!).searchParams.get('url'), url);

  // The part the link returns is the part fetch_url with the cursor returns, in the same size.
  const viaTool = await client.callTool({
    name: 'fetch_url',
    arguments: { url, max_tokens: 120, cursor: page.next_cursor },
  });
  const second = await read(client, link!.uri!);
  assert.equal(second.content.uri, link!.uri);
  assert.equal(second.content.mimeType, 'text/markdown');
  const toolPart = (viaTool.structuredContent as { markdown: string; next_cursor: string }).markdown;
  assert.ok(second.content.text.startsWith(toolPart), second.content.text.slice(0, 120));
  assert.ok(second.next!.startsWith('fetchdown://pages/'));
  assert.ok(second.content.text.endsWith(`Read on: ${second.next}`), second.content.text.slice(-200));

  // Followed to the end: each part links to the next, and the last one to none.
  let next: string | undefined = second.next;
  let parts = 2;
  while (next) {
    const part = await read(client, next);
    next = part.next;
    parts++;
    if (!next) assert.ok(!part.content.text.includes('Read on:'), part.content.text.slice(-200));
  }
  assert.ok(parts > 3, `${parts} parts`);
});

test('an untrimmed page has no link; format text reads on as text/plain; fetch_multiple links each page', async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const whole = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/article'), max_tokens: 5000 },
  });
  assert.deepEqual(linksOf(whole), []);

  const text = await client.callTool({
    name: 'fetch_url',
    arguments: { url: site.url('/long'), max_tokens: 100, format: 'text' },
  });
  const [textLink] = linksOf(text);
  assert.equal(textLink!.mimeType, 'text/plain');
  const part = await read(client, textLink!.uri!);
  assert.equal(part.content.mimeType, 'text/plain');
  assert.ok(!part.content.text.includes('## '), 'no Markdown syntax in a text part');

  const many = await client.callTool({
    name: 'fetch_multiple',
    arguments: { urls: [site.url('/long'), site.url('/article'), site.url('/long?again')], max_tokens_each: 150 },
  });
  const results = (many.structuredContent as { results: { url: string; next_cursor: string | null }[] }).results;
  const trimmed = results.filter((r) => r.next_cursor);
  assert.deepEqual(
    linksOf(many).map((l) => new URL(l.uri!).searchParams.get('url')),
    trimmed.map((r) => r.url),
  );
  assert.equal(new URL(linksOf(many)[0]!.uri!).searchParams.get('max_tokens'), '150');
  assert.ok((await read(client, linksOf(many)[0]!.uri!)).content.text.length > 0);
});

test('the template reads a URL with the default budget, and lists nothing', async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((r) => [r.uriTemplate, r.mimeType]),
    [['fetchdown://fetch/{+url}', 'text/markdown']],
  );
  assert.deepEqual((await client.listResources()).resources, []);

  const article = await read(client, `fetchdown://fetch/${site.url('/article')}`);
  assert.match(article.content.text, /Tomato/);
  assert.equal(article.next, undefined);
  const long = await read(client, `fetchdown://fetch/${site.url('/long')}`);
  assert.ok(long.next, 'a page over the default budget of 300 tokens reads on');
  assert.ok((await read(client, long.next)).content.text.length > 0);
});

test('a malformed cursor, an expired copy and a URL that is not one are InvalidParams', async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const refused = async (uri: string, message: RegExp) => {
    await assert.rejects(client.readResource({ uri }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.match(error.message, message);
      return true;
    });
  };
  const url = site.url(`/long?expiring-${Date.now()}`);
  await refused(`fetchdown://pages/not-a-cursor?url=${encodeURIComponent(url)}`, /Cursor is malformed/);
  await refused('fetchdown://fetch/not a url', /body\.url/);

  const trimmed = await client.callTool({ name: 'fetch_url', arguments: { url, max_tokens: 100 } });
  const [link] = linksOf(trimmed);
  const deleted = await api.request('DELETE', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(apiKey));
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  await refused(link!.uri!, /Cursor has expired/);
  // The server lives on: the next call answers.
  const again = await client.callTool({ name: 'fetch_url', arguments: { url } });
  assert.equal(again.isError, undefined, textOf(again));
});
