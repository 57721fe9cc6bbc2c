// What the installed package loads before its first answers, so it starts fast (issue 16): `fetchdown mcp` answers
// initialize and tools/list without the pipeline's modules, and a CLI fetch loads the pipeline but nothing of the
// server's. Checked by the modules each process loaded (test/helpers/module-log.mjs), never by elapsed time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { packAndInstall } from '../helpers/installed-package.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const MODULE_LOG = join(REPO_ROOT, 'test', 'helpers', 'module-log.mjs');
const work = mkdtempSync(join(tmpdir(), 'fetchdown-start-up-'));
const site = await startFixtureSite();
after(async () => {
  await site.close();
  rmSync(work, { recursive: true, force: true });
});

const { project, bin } = packAndInstall(work);
const installedDist = join(project, 'node_modules', 'fetchdown', 'dist');
/** The build's record of which sources each dist/ file bundles (scripts/build.mjs; the package leaves it out). */
const meta = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'meta.json'), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};
const env = {
  PATH: process.env.PATH ?? '',
  HOME: join(work, 'home'),
  DATA_DIR: join(work, 'data'),
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
};

/** The pipeline's modules: none is needed to answer initialize or to list the tools. */
const PIPELINE = [
  'src/pipeline.ts',
  'src/extract/index.ts',
  'src/fetchers/index.ts',
  'src/tokens/count.ts',
  'src/cache/index.ts',
  'src/services/fetch-service.ts',
  'linkedom',
  '@mozilla/readability',
  '@mdream/js',
  'marked',
  'gpt-tokenizer',
  'playwright-core',
  'pdfjs-dist',
  'better-sqlite3',
  'ioredis',
  'undici',
];
/** The HTTP server's modules and the account store's: neither `fetchdown mcp` nor a CLI fetch needs them. */
const SERVER = [
  'src/http',
  'src/pages',
  'src/accounts',
  'src/billing',
  'src/store',
  'src/mail',
  'fastify',
  'stripe',
  'kysely',
  'pg',
  'nodemailer',
];

/**
 * The sources behind the module files a process loaded, as paths under src/ or npm package names: a dist/ file stands
 * for every source its bundle holds, a file in node_modules (a package left out of the bundle) for its package.
 */
function loadedSources(urls: string[]): Set<string> {
  const sources = new Set<string>();
  const add = (path: string) => {
    // The innermost node_modules: the installed dependencies are under node_modules/fetchdown/node_modules.
    const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
    if (pkg) sources.add(pkg);
    else if (path.startsWith('src/')) sources.add(path);
  };
  for (const url of urls) {
    const path = fileURLToPath(url);
    if (!path.startsWith(installedDist)) {
      add(path);
      continue;
    }
    const output = meta.outputs[`dist${path.slice(installedDist.length)}`];
    assert.ok(output, `${path} is an output of the build that dist/meta.json describes`);
    for (const input of Object.keys(output.inputs)) add(input);
  }
  return sources;
}

/** The module log split at each write to stdout: entry i holds what loaded before the (i+1)th answer. */
function readLog(file: string): string[][] {
  const parts: string[][] = [[]];
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    if (line === '-- stdout') parts.push([]);
    else parts.at(-1)!.push(line);
  }
  return parts;
}

/** Which of `names` (a package, a source file, or a folder of src/) the loaded sources include. */
const present = (sources: Set<string>, names: string[]) =>
  names.filter((name) => [...sources].some((source) => source === name || source.startsWith(`${name}/`)));

test('the installed MCP server answers initialize and tools/list before it loads the pipeline', async (t) => {
  const log = join(work, 'mcp-modules.log');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', MODULE_LOG, bin, 'mcp'],
    cwd: project,
    env: { ...env, FETCHDOWN_MODULE_LOG: log },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'fetchdown-start-up-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  const { tools } = await client.listTools();
  assert.equal(tools.length, 7);
  const page = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/article') } });
  assert.equal(page.isError, undefined);

  const [beforeInitialize = [], beforeList = [], ...later] = readLog(log);
  const atList = loadedSources([...beforeInitialize, ...beforeList]);
  assert.ok(atList.has('@modelcontextprotocol/sdk'), 'the log names what loaded');
  assert.deepEqual(present(atList, [...PIPELINE, ...SERVER]), [], 'loaded before the tools/list answer');
  // The same check sees the pipeline once the tool call has needed it, and the server's modules still not.
  const atEnd = loadedSources([...beforeInitialize, ...beforeList, ...later.flat()]);
  assert.deepEqual(present(atEnd, ['src/extract/index.ts', 'gpt-tokenizer', 'linkedom']), [
    'src/extract/index.ts',
    'gpt-tokenizer',
    'linkedom',
  ]);
  assert.deepEqual(present(atEnd, SERVER), []);
});

test('a CLI fetch loads the pipeline and nothing of the HTTP server, Stripe, the account store or the MCP SDK', async () => {
  const log = join(work, 'cli-modules.log');
  const child = spawn(process.execPath, ['--import', MODULE_LOG, bin, site.url('/article')], {
    cwd: project,
    env: { ...env, FETCHDOWN_MODULE_LOG: log },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, stderr);
  const loaded = loadedSources(readLog(log).flat());
  assert.deepEqual(present(loaded, ['src/extract/index.ts', 'gpt-tokenizer', 'linkedom']), [
    'src/extract/index.ts',
    'gpt-tokenizer',
    'linkedom',
  ]);
  assert.deepEqual(present(loaded, [...SERVER, 'src/mcp', '@modelcontextprotocol/sdk', 'playwright-core']), []);
});

test('`fetchdown --help` loads neither the pipeline nor the server', async () => {
  const log = join(work, 'help-modules.log');
  const child = spawn(process.execPath, ['--import', MODULE_LOG, bin, '--help'], {
    cwd: project,
    env: { ...env, FETCHDOWN_MODULE_LOG: log },
  });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  const loaded = loadedSources(readLog(log).flat());
  assert.deepEqual(present(loaded, [...PIPELINE, ...SERVER, '@modelcontextprotocol/sdk']), []);
});
