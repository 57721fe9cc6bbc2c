// The npm package as a user gets it: staged and packed as the release workflow publishes it, the tarball unpacked into
// an empty directory and its dependencies installed from its npm-shrinkwrap.json by npm, offline and engine-strict
// (test/helpers/installed-package.ts), the installed bin driven from there (the CLI fetches a fixture page; the MCP SDK
// client lists and calls the tools over stdio).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { packAndInstall } from '../helpers/installed-package.js';
import { REPO_ROOT, textOf } from '../helpers/mcp-client.js';

const MAX_TARBALL_BYTES = 5 * 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'fetchdown-package-'));
const site = await startFixtureSite();
after(async () => {
  await site.close();
  rmSync(work, { recursive: true, force: true });
});

const { tarball, files, project, bin } = packAndInstall(work);
/** A file of the installed package, parsed. */
function readInstalled(...paths: string[]): Record<string, any> {
  const found = paths.map((path) => join(project, 'node_modules', 'fetchdown', path)).find((path) => existsSync(path));
  assert.ok(found, `${paths.join(' or ')} in the installed package`);
  return JSON.parse(readFileSync(found, 'utf8')) as Record<string, any>;
}
const home = join(work, 'home');
/** A user's environment without DATA_DIR: the data goes to the per-user data directory under XDG_DATA_HOME. */
const ENV = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  XDG_DATA_HOME: join(home, 'xdg'),
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
};

test('the tarball is small and holds the compiled JavaScript, the README and the licence, nothing of the tests', () => {
  assert.ok(statSync(tarball).size < MAX_TARBALL_BYTES, `${statSync(tarball).size} bytes`);
  for (const file of [
    'bin/fetchdown.mjs',
    'dist/cli.js',
    'dist/main.js',
    'README.md',
    'LICENSE',
    'package.json',
    'npm-shrinkwrap.json',
    'server.json',
  ]) {
    assert.ok(files.includes(file), `${file} is in the package`);
  }
  const unwanted = files.filter(
    (f) => /(^|\/)(test|tests|bench|fixtures?|src)\//.test(f) || (/\.ts$/.test(f) && !f.endsWith('.d.ts')),
  );
  assert.deepEqual(unwanted, []);
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'fetchdown', 'package.json'), 'utf8'));
  assert.equal(manifest.private, undefined);
  assert.equal(manifest.license, 'MIT');
  assert.equal(manifest.dependencies.tsx, undefined, 'tsx is not needed at run time');
});

test('the package has no script for npm to run or to ask a user to approve, and no dev dependencies', () => {
  const manifest = readInstalled('package.json');
  // The checkout's prepare script (patch-package, the build) needs dev dependencies; npm 11 lists a tarball's
  // prepare among the scripts a user should approve.
  assert.equal(manifest.scripts, undefined);
  assert.equal(manifest.devDependencies, undefined);
  assert.equal(
    manifest.overrides,
    undefined,
    'overrides apply to the root project only, never to its users: not shipped',
  );
  assert.ok(!files.some((f) => f.startsWith('patches/')), 'dist/ holds the patched code already');
});

test('the dependencies a user gets are the tested tree: the shrinkwrap, installed by npm, all for Node 20', () => {
  type Entry = { version?: string; dev?: boolean; devOptional?: boolean; optional?: boolean };
  const shrinkwrap = readInstalled('npm-shrinkwrap.json') as { packages: Record<string, Entry> };
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as typeof shrinkwrap;
  // The lock less what only development installs (dev dependencies, and optional peers only they pull in).
  const production = Object.keys(lock.packages).filter((path) => path && !lock.packages[path]!.dev);
  const required = production.filter((path) => !lock.packages[path]!.devOptional);
  const pinned = Object.keys(shrinkwrap.packages).filter(Boolean);
  assert.deepEqual(
    required.filter((path) => !pinned.includes(path)),
    [],
    'production packages left out',
  );
  for (const path of pinned) assert.deepEqual(shrinkwrap.packages[path], lock.packages[path], path);
  // What npm put on disk is that tree, and --engine-strict refused none of it for this Node (the helper).
  for (const path of pinned) {
    const installed = join(project, 'node_modules', 'fetchdown', path, 'package.json');
    if (shrinkwrap.packages[path]!.optional && !existsSync(installed)) continue; // another platform's build
    assert.equal(JSON.parse(readFileSync(installed, 'utf8')).version, shrinkwrap.packages[path]!.version, path);
  }
});

test('npm that ignores the shrinkwrap (a local tarball) resolves light-my-request to the pin, whose cookie runs on 20', () => {
  // fastify's `light-my-request: ^6.0.0` would take the newest 6.x, whose cookie@2 needs Node 22 (EBADENGINE on 20).
  // The direct dependency pins the version the lock has; npm places one copy, which fastify's range accepts.
  const manifest = readInstalled('package.json');
  const shrinkwrap = readInstalled('npm-shrinkwrap.json') as { packages: Record<string, { version: string }> };
  const copies = Object.keys(shrinkwrap.packages).filter((path) => /(^|\/)light-my-request$/.test(path));
  assert.deepEqual(copies, ['node_modules/light-my-request']);
  assert.equal(
    manifest.dependencies['light-my-request'],
    shrinkwrap.packages['node_modules/light-my-request']!.version,
  );
  const cookie = readInstalled(
    'node_modules/light-my-request/node_modules/cookie/package.json',
    'node_modules/cookie/package.json',
  );
  assert.match(cookie.version, /^1\./);
});

test('server.json describes this package for the MCP registry', () => {
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'fetchdown', 'package.json'), 'utf8'));
  const server = JSON.parse(readFileSync(join(project, 'node_modules', 'fetchdown', 'server.json'), 'utf8'));
  assert.equal(server.name, manifest.mcpName, 'the registry checks the package claims the name');
  assert.equal(server.version, manifest.version);
  const [npm] = server.packages;
  assert.deepEqual(
    [npm.registryType, npm.identifier, npm.version, npm.transport.type],
    ['npm', manifest.name, manifest.version, 'stdio'],
  );
  assert.deepEqual(npm.packageArguments, [{ type: 'positional', value: 'mcp' }]);
  assert.equal(server.remotes[0].type, 'streamable-http');
  assert.match(server.remotes[0].url, /\/mcp$/);
});

test('the installed CLI fetches a page and keeps its data in the per-user data directory', async () => {
  const child = spawn('npx', ['--offline', 'fetchdown', site.url('/article')], { cwd: project, env: ENV });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^# /);
  assert.ok(stdout.length > 200, stdout);
  const dataDir = join(home, 'xdg', 'fetchdown');
  assert.ok(existsSync(join(dataDir, 'cache.sqlite')), 'the cache is written to the per-user data directory');
  assert.ok(!existsSync(join(project, 'node_modules', 'fetchdown', 'data')), 'nothing is written inside node_modules');
});

test('the installed MCP server answers the SDK client over stdio: tools listed and called', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    cwd: project,
    env: { ...ENV, CACHE_URL: 'memory://' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'fetchdown-package-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    'crawl_site',
    'crawl_status',
    'estimate_tokens',
    'fetch_multiple',
    'fetch_url',
    'map_site',
    'search_and_fetch',
  ]);
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/article') } });
  assert.equal(result.isError, undefined, textOf(result));
  assert.ok((result.structuredContent as { metadata: { token_count: number } }).metadata.token_count > 0);
  assert.match(textOf(result), /^# /m);
  assert.match(stderr, /ready on stdio .*data directory: .*xdg\/fetchdown\n/);
});

test('the installed serve command answers /health', async () => {
  const child = spawn(process.execPath, [bin, 'serve'], {
    cwd: project,
    env: { ...ENV, PORT: '0', LOG_LEVEL: 'info' },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const [, base] = await waitFor<RegExpExecArray>(
    () => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out),
    () => out,
  );
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

/** Polls until `check` gives a value (the server's log line), failing with the output after 30 s. */
async function waitFor<T>(check: () => T | null, output: () => string): Promise<T> {
  for (let tries = 0; tries < 600; tries++) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the server did not start:\n${output()}`);
}
