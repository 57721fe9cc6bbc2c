// Every tool's listed outputSchema against what the tool really returns: each of the 7 tools called over POST /mcp
// (with a key) on a loopback site, its structuredContent validated with Ajv against the schema tools/list gave, with
// no field the schema does not declare.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createAjv } from '../../src/contract/validate.js';
import { setPlan, signUp, withKey } from '../helpers/accounts.js';
import { CRAWL_TEST_ENV, crawlSiteAddresses } from '../helpers/crawl-api.js';
import { startCrawlSite } from '../helpers/crawl-site.js';
import { connectHttp, textOf } from '../helpers/mcp-client.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startCrawlSite({ pages: 5 });
const searxng = await startSearxngStandin([]);
after(() => Promise.all([site.close(), searxng.close()]));
const api = await buildTestApp(
  { after },
  { ...CRAWL_TEST_ENV, SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin },
  { addresses: crawlSiteAddresses() },
);
const { apiKey } = await signUp(api);
await setPlan(api, apiKey, 'pro');
searxng.setHits([
  { title: 'Doc 1', url: `${site.origin()}/docs/1`, snippet: 'The first doc' },
  { title: 'Missing', url: `${site.origin()}/no-such-page`, snippet: 'Gone' },
]);

// Defaults are not filled in: the result is checked as it was sent.
const ajv = createAjv({ useDefaults: false });

/**
 * The schema with every object closed that does not say otherwise: a field the result has and the schema does not
 * declare fails too, so the schema describes all of the result, not only part of it.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

/** Calls `name` and checks its structuredContent against the tool's listed outputSchema; returns it. */
async function callChecked(client: Client, schemas: Map<string, object>, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, undefined, `${name}: ${textOf(result)}`);
  const validate = ajv.compile(closed(schemas.get(name)!) as object);
  assert.ok(validate(result.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`);
  return result.structuredContent as Record<string, any>;
}

test("every tool's structuredContent validates against its outputSchema", async (t) => {
  const client = await connectHttp(t, api.base, withKey(apiKey));
  const { tools } = await client.listTools();
  const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema!]));
  const called = new Set<string>();
  const check = async (name: string, args: Record<string, unknown>) => {
    called.add(name);
    return callChecked(client, schemas, name, args);
  };
  const doc = `${site.origin()}/docs/1`;

  const whole = await check('fetch_url', { url: doc, max_tokens: 5000 });
  assert.equal(whole.next_cursor, null);
  const trimmed = await check('fetch_url', { url: doc, max_tokens: 20 });
  assert.equal(typeof trimmed.next_cursor, 'string');
  await check('fetch_url', { url: doc, max_tokens: 20, cursor: trimmed.next_cursor });
  await check('fetch_url', { url: `${site.origin()}/docs/2`, format: 'json', include: ['main'] });

  const batch = await check('fetch_multiple', { urls: [doc, `${site.origin()}/no-such-page`], max_tokens_each: 20 });
  assert.deepEqual(
    batch.results.map((r: object) => 'error' in r),
    [false, true],
  );
  await check('estimate_tokens', { url: doc });
  const search = await check('search_and_fetch', { query: 'first doc', num_results: 2 });
  assert.deepEqual(
    search.results.map((r: object) => 'error' in r),
    [false, true],
  );
  await check('map_site', { url: `${site.origin()}/`, search: 'docs' });

  const { id } = await check('crawl_site', { url: doc, limit: 2, sitemap: 'skip' });
  for (;;) {
    const status = await check('crawl_status', { id });
    if (!['queued', 'running'].includes(status.status as string)) {
      assert.equal(status.status, 'completed');
      assert.ok(status.pages.length > 0);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual([...called].sort(), tools.map((tool) => tool.name).sort());
});
