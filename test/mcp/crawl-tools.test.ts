// The crawl tools (map_site, crawl_site, crawl_status) on each way of reaching them: over POST /mcp for the key's
// account, over stdio in remote mode through the HTTP API, refused in local mode with the variables to set; and their
// results fitted to the character budget.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CrawlStatus } from '../../src/contract/crawl.js';
import type { FetchResult } from '../../src/contract/fetch.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { AgentOperations } from '../../src/operations/agent.js';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { buildIfStale } from '../helpers/build.js';
import { CRAWL_TEST_ENV, crawlSiteAddresses } from '../helpers/crawl-api.js';
import { startCrawlSite } from '../helpers/crawl-site.js';
import { connectHttp, connectStdio, textOf } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startCrawlSite({ pages: 30 });
after(() => site.close());
const api = await buildTestApp({ after }, CRAWL_TEST_ENV, { addresses: crawlSiteAddresses() });
const { apiKey } = await signUp(api);
await setPlan(api, apiKey, 'pro');

type Structured = Record<string, any>;
const structured = (result: object) => (result as { structuredContent: Structured }).structuredContent;

/** Starts a crawl of three docs with crawl_site and follows it with crawl_status until it is over. */
async function crawlWithTools(client: Client) {
  const started = await client.callTool({
    name: 'crawl_site',
    arguments: { url: `${site.origin()}/docs/1`, limit: 3, sitemap: 'skip' },
  });
  assert.equal(started.isError, undefined, textOf(started));
  const { id, status_url } = structured(started);
  assert.match(id, /^cr_/);
  assert.equal(status_url, `${new URL(status_url).origin}/crawl/${id}`);
  assert.ok(textOf(started).includes(`Call crawl_status with id "${id}"`), textOf(started));
  for (;;) {
    const status = await client.callTool({ name: 'crawl_status', arguments: { id } });
    assert.equal(status.isError, undefined, textOf(status));
    if (!['queued', 'running'].includes(structured(status).status)) return { id, status };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('over POST /mcp: map_site lists the site, crawl_site starts a crawl and crawl_status reads its pages', async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const map = await client.callTool({ name: 'map_site', arguments: { url: `${site.origin()}/`, search: 'calendar' } });
  assert.equal(map.isError, undefined, textOf(map));
  assert.match(structured(map).links[0].url, /calendar/);
  assert.equal(structured(map).credits, 1);
  assert.match(textOf(map), /^# \d+ URLs of http:\/\/site\.test:\d+\/\n\n1 credit\n\n- .*calendar/);

  const { id, status } = await crawlWithTools(client);
  const s = structured(status);
  assert.equal(s.status, 'completed');
  assert.equal(s.counts.fetched, 3);
  assert.deepEqual(Object.keys(s.pages[0]).sort(), ['credits', 'cut', 'markdown', 'title', 'token_count', 'url']);
  assert.ok(textOf(status).startsWith(`# Crawl ${id} of ${site.origin()}/docs/1: completed\n\n3 fetched of 3`));
  assert.match(textOf(status), /## 1\. .+\n\nURL: http:\/\/site\.test:\d+\/docs\/1 · \d+ tokens · 1 credit\n/);
  // Each page is the start of the page the HTTP API gives.
  const whole = await api.request('GET', `/crawl/${id}`, undefined, withKey(apiKey));
  for (const [i, page] of (s.pages as { markdown: string; cut: boolean }[]).entries()) {
    const full = (whole.body.pages as FetchResult[])[i]!.markdown;
    assert.ok(full.startsWith(page.markdown.replace(/ …$/, '')), page.markdown.slice(0, 80));
    assert.equal(page.cut, full.length > 1000);
  }
});

test('over POST /mcp: a caller without credentials cannot connect, and another account cannot read a crawl', async (t) => {
  await assert.rejects(connectHttp(t, api.base), /key_required/);
  const mine = await connectHttp(t, api.base, withKey(apiKey));
  const { id } = structured(
    await mine.callTool({ name: 'crawl_site', arguments: { url: `${site.origin()}/`, limit: 1 } }),
  );
  const other = await connectHttp(t, api.base, withKey((await signUp(api)).apiKey));
  const unknown = await other.callTool({ name: 'crawl_status', arguments: { id } });
  assert.match(textOf(unknown), /^Error 404 not_found: no crawl cr_\w+ on this account/);
  const bad = await mine.callTool({ name: 'crawl_status', arguments: { id, limit: 0 } });
  assert.match(textOf(bad), /query\.limit: Input should be greater than or equal to 1/);
});

test('over stdio in remote mode: the tools call POST /map, POST /crawl and GET /crawl/{id} with the key', async (t) => {
  buildIfStale();
  const { client } = await connectStdio(t, { FETCHDOWN_API_URL: api.base, FETCHDOWN_API_KEY: apiKey });
  const map = await client.callTool({ name: 'map_site', arguments: { url: `${site.origin()}/`, limit: 5 } });
  assert.equal(map.isError, undefined, textOf(map));
  assert.equal(structured(map).links.length, 5);
  const { status } = await crawlWithTools(client);
  assert.equal(structured(status).counts.fetched, 3);
  assert.equal(structured(status).pages.length, 3);
});

test('over stdio in local mode: the crawl tools say to set FETCHDOWN_API_URL and FETCHDOWN_API_KEY', async (t) => {
  buildIfStale();
  const { client } = await connectStdio(t, { CACHE_URL: 'memory://' });
  for (const [name, args] of [
    ['map_site', { url: 'https://example.com/' }],
    ['crawl_site', { url: 'https://example.com/' }],
    ['crawl_status', { id: 'cr_1' }],
  ] as const) {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, name);
    assert.match(textOf(result), /^Error 401 key_required: maps and crawls run on a Fetchdown server/, name);
    assert.match(textOf(result), /Next step: set FETCHDOWN_API_URL .* and FETCHDOWN_API_KEY/, name);
  }
});

/** A crawl's status with `count` pages of `chars` characters each. */
function statusWith(count: number, chars: number): CrawlStatus {
  const page = (i: number) =>
    ({
      url: `https://site.example/docs/${i}`,
      markdown: `# Page ${i}\n\n${'Words and more words. '.repeat(chars / 22)}`,
      metadata: { title: `Page ${i}`, token_count: chars / 4 },
      credits: 1,
    }) as FetchResult;
  const counts = { discovered: count, fetched: count, failed: 0, skipped_robots: 0, blocked: 0, credits: count };
  return {
    ...{ id: 'cr_1', url: 'https://site.example/', status: 'running', stop_reason: null, error: null, counts },
    ...{ created_at: '2025-01-01T00:00:00.000Z', finished_at: null, expires_at: '2025-01-02T00:00:00.000Z' },
    pages: Array.from({ length: count }, (_, i) => page(i + 1)),
    next_cursor: String(count),
  };
}

test('results fit the character budget: links left out are counted, pages are cut to their first part', async (t) => {
  const links = Array.from({ length: 5000 }, (_, i) => ({ url: `https://site.example/p/${i}`, source: 'sitemap' }));
  const operations = {
    mapSite: async () => ({ url: 'https://site.example/', links, credits: 1 }),
    crawlStatus: async (args: { limit: number }) => statusWith(args.limit, 5000),
  } as unknown as AgentOperations;
  const server = createMcpServer(operations, { defaultMaxChars: 20_000 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(() => client.close());

  const map = structured(await client.callTool({ name: 'map_site', arguments: { url: 'https://site.example/' } }));
  assert.ok(JSON.stringify(map).length <= 20_000);
  assert.equal(map.links.length + map.links_omitted, 5000);
  assert.ok(map.links.length > 100, `${map.links.length} links shown`);

  for (const [limit, each] of [
    [3, 1000],
    [20, 560],
  ] as const) {
    const result = await client.callTool({ name: 'crawl_status', arguments: { id: 'cr_1', limit } });
    const pages = structured(result).pages as { markdown: string; cut: boolean }[];
    assert.equal(pages.length, limit);
    assert.ok(pages.every((page) => page.cut && page.markdown.length <= each + 2 && page.markdown.endsWith(' …')));
    assert.ok(JSON.stringify(structured(result)).length <= 20_000);
    assert.match(
      textOf(result),
      /More pages: call crawl_status with id "cr_1" and cursor "\d+"\. To read a page whole/,
    );
  }
});
