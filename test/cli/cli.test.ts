// The fetchdown command end to end: spawned as a user runs it (node bin/fetchdown.mjs …), against the fixture site.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { startFetcherSite } from '../helpers/fixture-fetchers.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { signUp } from '../helpers/accounts.js';
import { spawnTracked, waitForOutput } from '../helpers/children.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startFixtureSite();
const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-cli-'));
after(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir,
  FETCH_ALLOW_PRIVATE_NETWORKS: '1',
  CACHE_URL: 'memory://',
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Children still running when the file ends (a test that failed mid-run) are killed then. */
const running = new Set<ReturnType<typeof spawn>>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, ['bin/fetchdown.mjs', ...args], {
    cwd: REPO_ROOT,
    env: { ...BASE_ENV, ...env },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

test('prints the page as Markdown and nothing else', async () => {
  const r = await run([site.url('/article')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /Tomatoes need at least six hours of direct sun/);
  assert.match(r.stdout, /\| Variety \| Days to harvest \|/);
  assert.doesNotMatch(r.stdout, /SITE-NAV-MARKER|COOKIE-MARKER/);
  assert.ok(r.stdout.endsWith('\n'));
});

test('--max-tokens trims the output to the budget', async () => {
  const r = await run([site.url('/long'), '--max-tokens', '60']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(countTokens(r.stdout.trimEnd()) <= 60, `${countTokens(r.stdout)} tokens`);
  assert.match(r.stdout, /A Long Guide/);
});

test('--query with --max-tokens prints the passages that match it; a one-letter query is refused naming the flag', async () => {
  const r = await run([site.url('/long'), '--max-tokens', '120', '--query', 'part 14']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(countTokens(r.stdout.trimEnd()) <= 120, `${countTokens(r.stdout)} tokens`);
  assert.match(r.stdout, /## Part 14\n\nSection 14 sentence 0/);
  assert.match(r.stdout, /\[… \d+ tokens left out …\]/);
  const bad = await run([site.url('/long'), '--query', 'x']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--query: String should have at least 2 characters/);
});

test('--format text and --format json', async () => {
  const text = await run([site.url('/article'), '--format', 'text']);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /^#+ /m);
  assert.match(text.stdout, /Tomatoes need at least six hours/);
  const json = await run([site.url('/article'), '--format=json']);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout);
  assert.ok(Array.isArray(parsed.document.blocks));
  assert.equal(parsed.fetch_info.fetcher_used, 'html');
});

test('--links and --images', async () => {
  const r = await run([site.url('/links'), '--links', 'reference', '--images', 'none']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Start with the \[soil guide\]\[1\], then the \[watering guide\]\[2\]\.$/m);
  assert.match(r.stdout, /^\[1\]: http:\/\/127\.0\.0\.1:\d+\/guides\/soil$/m);
  assert.doesNotMatch(r.stdout, /!\[/);
});

test('--include, --exclude and --max-age; bad ones exit 2 naming the flag', async () => {
  const only = await run([site.url('/article'), '--include', 'table', '--include', 'h1']);
  assert.equal(only.code, 0, only.stderr);
  assert.match(only.stdout, /^# Growing Tomatoes on a Balcony\n\n\| Variety/);
  assert.doesNotMatch(only.stdout, /six hours/);
  const without = await run([site.url('/article'), '--exclude', 'table', '--max-age', '0']);
  assert.equal(without.code, 0, without.stderr);
  assert.match(without.stdout, /six hours/);
  assert.doesNotMatch(without.stdout, /\| Variety/);
  const cases: [string[], RegExp][] = [
    [['--max-age=-1'], /--max-age: Input should be greater than or equal to 0/],
    [['--include', 'p', '--include', 'div['], /--include #2: Invalid CSS selector "div\["/],
  ];
  for (const [args, expected] of cases) {
    const r = await run([site.url('/article'), ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, expected);
  }
});

test('--pages and --page-markers read part of a PDF, each page marked; a bad range exits 2 naming the flag', async (t) => {
  const pdfSite = await startFetcherSite();
  t.after(() => pdfSite.close());
  const r = await run([pdfSite.url('/report.pdf'), '--pages', '2', '--page-markers']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^# Field Guide to Balcony Tomatoes\n\n<!-- page 2 -->\n\n## Two columns of notes/);
  assert.doesNotMatch(r.stdout, /Sun and soil|Pests/);
  const bad = await run([pdfSite.url('/report.pdf'), '--pages', '3-1']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--pages: The range 3-1 ends before it starts/);
});

test('--verbose adds the metadata as JSON on stderr, stdout unchanged', async () => {
  const r = await run([site.url('/article'), '--verbose']);
  assert.equal(r.code, 0, r.stderr);
  const meta = JSON.parse(r.stderr);
  assert.match(meta.metadata.title, /Growing Tomatoes on a Balcony|Gardening Notes/);
  assert.equal(typeof meta.metadata.token_count, 'number');
  assert.equal(meta.fetch_info.fetcher_used, 'html');
  assert.equal(meta.markdown, undefined);
  assert.match(r.stdout, /Tomatoes need at least six hours/);
});

test('a failed fetch exits 1 with the error detail on stderr', async () => {
  const r = await run([site.url('/status/404')]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^fetchdown: Error 502 upstream_status: .*404/);
  assert.match(r.stderr, /Next step: the page does not exist/);
});

test('bad usage and bad arguments exit 2 and say what to fix', async () => {
  const cases: [string[], RegExp][] = [
    [[], /no URL given[\s\S]*Usage:/],
    [[site.url('/article'), '--max-tokens', '0'], /--max-tokens: Input should be greater than or equal to 1/],
    [[site.url('/article'), '--max-tokens', 'lots'], /--max-tokens: Input should be a valid integer/],
    [[site.url('/article'), '--format', 'pdf'], /--format: Input should be 'markdown', 'text' or 'json'/],
    [[site.url('/article'), '--links', 'footnotes'], /--links: Input should be 'inline', 'reference' or 'none'/],
    [['ftp://example.com/file'], /url: URL scheme should be 'http' or 'https'/],
    [[site.url('/article'), '--colour'], /Unknown option '--colour'/],
    [[site.url('/a'), site.url('/b')], /expected one URL, got 2/],
  ];
  for (const [args, expected] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, expected);
    assert.equal(r.stdout, '');
  }
});

test('a bad configuration exits 3 naming the variable', async () => {
  const r = await run([site.url('/article')], { SEARCH_PROVIDER: 'brave' });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /invalid configuration: SEARCH_API_KEY/);
});

test('--help and --version', async () => {
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(
    help.stdout,
    /fetchdown <url> \[--max-tokens N\] \[--query TEXT\] \[--format markdown\|text\|json\] \[--links inline\|reference\|none\]/,
  );
  assert.match(help.stdout, /\[--max-age SECONDS\] \[--include SELECTOR\]\.\.\. \[--exclude SELECTOR\]\.\.\./);
  assert.match(help.stdout, /\[--verbose\]/);
  const version = await run(['--version']);
  assert.equal(version.stdout, '1.0.0\n');
});

test('remote mode: the fetch goes through the API', async (t) => {
  const api = await buildTestApp(t);
  const { apiKey } = await signUp(api);
  const url = site.url(`/unique/cli-remote-${Date.now()}`);
  // No private-network permission in the CLI's own process: only the API can have fetched the fixture site.
  const first = await run([url], {
    FETCH_ALLOW_PRIVATE_NETWORKS: '0',
    FETCHDOWN_API_URL: api.base,
    FETCHDOWN_API_KEY: apiKey,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /Page \/unique\/cli-remote-\d+ served at hit 1/);
  const status = await api.get(`/cache?url=${encodeURIComponent(url)}`);
  assert.equal(status.body.cached, true, 'the API fetched and cached it');
  const refused = await run([url], { FETCHDOWN_API_URL: api.base, FETCHDOWN_API_KEY: 'fd_live_not-a-real-key' });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^fetchdown: Error 401 invalid_api_key: /);
});

test('serve starts the HTTP API and stops cleanly on SIGTERM', async (t) => {
  const serve = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', 'serve'], {
    cwd: REPO_ROOT,
    env: { ...BASE_ENV, PORT: '0', LOG_LEVEL: 'info' },
  });
  const [, base] = await waitForOutput(serve, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  const health = await fetch(`${base}/health`);
  assert.deepEqual(await health.json(), { status: 'ok' });
  serve.child.kill('SIGTERM');
  const [code] = await once(serve.child, 'exit');
  assert.equal(code, 0, serve.output());
});
