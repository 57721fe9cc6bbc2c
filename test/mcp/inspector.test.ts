// The tools driven by the MCP Inspector CLI (a devDependency, pinned), as a person trying Fetchdown runs it: each
// `--tool-arg key=value` is a string the Inspector turns into an argument by the tool's input schema.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';

const INSPECTOR = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'inspector');
const { bin } = JSON.parse(readFileSync(join(INSPECTOR, 'package.json'), 'utf8')) as { bin: Record<string, string> };

const site = await startFixtureSite();
const home = mkdtempSync(join(tmpdir(), 'fetchdown-inspector-'));
after(async () => {
  await site.close();
  rmSync(home, { recursive: true, force: true });
});

/** `inspector --cli <fetchdown mcp> --method …`: its JSON answer; it exits non-zero on an isError result. */
async function inspect(...args: string[]): Promise<any> {
  const server = ['-e', 'FETCH_ALLOW_PRIVATE_NETWORKS=1', '-e', 'CACHE_URL=memory://', '-e', `DATA_DIR=${home}`];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(INSPECTOR, bin.inspector!), '--cli', ...server, process.execPath, 'bin/fetchdown.mjs', 'mcp', ...args],
    { cwd: REPO_ROOT, env: { PATH: process.env.PATH, HOME: home }, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout);
}

test('tools/list through the Inspector: the seven tools, sizes declared as plain integers', async () => {
  const { tools } = await inspect('--method', 'tools/list');
  assert.deepEqual(
    tools.map((tool: any) => tool.name),
    ['fetch_url', 'estimate_tokens', 'fetch_multiple', 'search_and_fetch', 'map_site', 'crawl_site', 'crawl_status'],
  );
  const fetchUrl = tools.find((tool: any) => tool.name === 'fetch_url');
  assert.equal(fetchUrl.inputSchema.properties.max_tokens.type, 'integer');
});

test('fetch_url with --tool-arg max_tokens=100: a page within 100 tokens', async () => {
  const result = await inspect(
    ...['--method', 'tools/call', '--tool-name', 'fetch_url'],
    ...['--tool-arg', `url=${site.url('/long')}`, '--tool-arg', 'max_tokens=100'],
  );
  assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 500));
  const { metadata, next_cursor } = result.structuredContent;
  assert.equal(metadata.title, 'A Long Guide');
  assert.ok(metadata.token_count > 0 && metadata.token_count <= 100, String(metadata.token_count));
  assert.equal(metadata.truncated, true);
  assert.equal(typeof next_cursor, 'string');
});

test('fetch_multiple with --tool-arg max_tokens_each=50: each page within 50 tokens', async () => {
  const result = await inspect(
    ...['--method', 'tools/call', '--tool-name', 'fetch_multiple'],
    ...['--tool-arg', `urls=${JSON.stringify([site.url('/long'), site.url('/article')])}`],
    ...['--tool-arg', 'max_tokens_each=50'],
  );
  assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 500));
  const pages = result.structuredContent.results;
  assert.equal(pages.length, 2);
  for (const page of pages) assert.ok(page.metadata.token_count > 0 && page.metadata.token_count <= 50, page.url);
});
