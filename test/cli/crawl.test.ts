// `fetchdown map` and `fetchdown crawl` end to end: spawned as a user runs them (node bin/fetchdown.mjs …) against a
// test server on the embedded default, which maps and crawls the crawl site.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setPlan, signUp } from '../helpers/accounts.js';
import { buildIfStale } from '../helpers/build.js';
import { CRAWL_TEST_ENV, crawlSiteAddresses } from '../helpers/crawl-api.js';
import { startCrawlSite } from '../helpers/crawl-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';

buildIfStale();
const site = await startCrawlSite({ pages: 30 });
const dir = mkdtempSync(join(tmpdir(), 'fetchdown-cli-crawl-'));
after(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});
const api = await buildTestApp({ after }, CRAWL_TEST_ENV, { addresses: crawlSiteAddresses() });
const { apiKey } = await signUp(api);
await setPlan(api, apiKey, 'pro');

const REMOTE = { FETCHDOWN_API_URL: api.base, FETCHDOWN_API_KEY: apiKey };
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dir, CACHE_URL: 'memory://' };

/** `fetchdown <args>`, or `command <args>` (`script`, which runs it on a terminal). */
async function run(args: string[], env: Record<string, string> = REMOTE, command?: string) {
  const [file, argv] = command ? [command, args] : [process.execPath, ['bin/fetchdown.mjs', ...args]];
  const child = spawn(file, argv, { cwd: REPO_ROOT, env: { ...BASE_ENV, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

test('map prints the URLs one a line, ranked by --search; --json prints the answer', async () => {
  const listed = await run(['map', `${site.origin()}/`, '--limit', '5', '--search', 'calendar']);
  assert.equal(listed.code, 0, listed.stderr);
  const urls = listed.stdout.trimEnd().split('\n');
  assert.equal(urls.length, 5);
  assert.ok(urls.every((url) => url.startsWith(`${site.origin()}/`)));
  assert.match(urls[0]!, /\/calendar/);
  const json = await run(['map', `${site.origin()}/`, '--limit', '3', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const answer = JSON.parse(json.stdout);
  assert.equal(answer.links.length, 3);
  assert.equal(answer.credits, 1);
});

test('crawl writes one Markdown file per page with front matter, lists them, and prints progress lines', async () => {
  const out = join(dir, 'docs');
  // The slow host (200 ms an answer): the crawl is still under way when the command first asks.
  const start = `${site.origin('slow.site.test')}/docs/1`;
  const r = await run(['crawl', start, '--limit', '3', '--max-depth', '1', '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  const names = readdirSync(out).sort();
  assert.equal(names.length, 3, names.join(' '));
  assert.ok(names.includes('docs-1.md') && names.every((name) => /^docs-\d+\.md$/.test(name)), names.join(' '));
  assert.deepEqual(
    r.stdout.trimEnd().split('\n').sort(),
    names.map((name) => join(out, name)),
  );
  const first = readFileSync(join(out, 'docs-1.md'), 'utf8');
  assert.match(
    first,
    /^---\nurl: "http:\/\/slow\.site\.test:\d+\/docs\/1"\ntitle: ".+"\nfetched_at: "\d{4}-\d\d-\d\dT[\d:.]+Z"\ncredits: 1\ntokens: \d+\n---\n\n/,
  );
  assert.match(first, /PAGE-1-MARKER/);
  // Not a terminal: plain lines, no bar redrawn with carriage returns; the first as soon as the crawl is under way.
  assert.doesNotMatch(r.stderr, /\r/);
  const lines = r.stderr.trimEnd().split('\n');
  assert.ok(lines.length >= 2, r.stderr);
  for (const line of lines)
    assert.match(line, /^fetchdown: crawl cr_\w+ (queued|running|completed \(\w+\)): \d+\/\d+ pages, [\d.]+ credits/);
  assert.match(lines.at(-1)!, /completed \(\w+\): 3\/3 pages, 3 credits$/);
});

test('crawl --json prints a summary with the files; on a terminal the progress is a bar', async (t) => {
  const out = join(dir, 'json');
  const r = await run(['crawl', `${site.origin()}/`, '--limit', '1', '--out', out, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.status, 'completed');
  assert.equal(summary.counts.fetched, 1);
  assert.deepEqual(summary.files, [{ url: `${site.origin()}/`, file: join(out, 'index.md') }]);

  if (!existsSync('/usr/bin/script')) return t.skip('no /usr/bin/script to run the command on a terminal');
  const crawl = ['crawl', `${site.origin()}/docs/1`, '--limit', '2', '--out', join(dir, 'tty')];
  const command = [process.execPath, 'bin/fetchdown.mjs', ...crawl].map((arg) => `'${arg}'`).join(' ');
  const tty = await run(['-qec', command, '/dev/null'], REMOTE, '/usr/bin/script');
  assert.equal(tty.code, 0, tty.stdout);
  assert.match(tty.stdout, /\r\x1b\[K\[#{24}\] crawl cr_\w+ completed \(\w+\): 2\/2 pages, [\d.]+ credits\r?\n/);
});

test('Ctrl-C cancels the crawl on the server, writes the pages already read, and exits 130', async () => {
  const out = join(dir, 'interrupted');
  // The slow host and a limit far off: the crawl is under way, not done, when the first page is written.
  const start = `${site.origin('slow.site.test')}/docs/1`;
  const child = spawn(process.execPath, ['bin/fetchdown.mjs', 'crawl', start, '--limit', '30', '--out', out], {
    cwd: REPO_ROOT,
    env: { ...BASE_ENV, ...REMOTE },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let sent = false;
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    // Once: a second Ctrl-C leaves at once.
    if (!sent && stdout.includes('\n')) sent = child.kill('SIGINT');
  });
  const [code] = await once(child, 'exit');
  assert.equal(code, 130, stderr);
  const id = /cancelling crawl (cr_\w+)/.exec(stderr)?.[1];
  assert.ok(id, stderr);
  assert.match(stderr, new RegExp(`crawl ${id} cancelled: cancelled`));
  const status = await api.request('GET', `/crawl/${id}`, undefined, { 'x-service-key': apiKey });
  assert.equal(status.body.status, 'cancelled');
  assert.ok(status.body.counts.fetched < 30, `${status.body.counts.fetched} pages read`);
  // Every page the crawl kept is a file, listed on stdout.
  assert.equal(readdirSync(out).length, status.body.counts.fetched);
  assert.equal(stdout.trimEnd().split('\n').length, status.body.counts.fetched);
});

test('map and crawl need the API; bad flags are named', async () => {
  for (const args of [
    ['map', `${site.origin()}/`],
    ['crawl', `${site.origin()}/`, '--out', dir],
  ]) {
    const r = await run(args, {});
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /runs on a Fetchdown server: set FETCHDOWN_API_URL \(the server\) and FETCHDOWN_API_KEY/);
  }
  const cases: [string[], RegExp][] = [
    [['crawl', `${site.origin()}/`], /--out: the directory to write the pages to is required/],
    [
      ['crawl', `${site.origin()}/`, '--out', dir, '--max-depth=-1'],
      /--max-depth: Input should be greater than or equal to 0/,
    ],
    [['map', `${site.origin()}/`, '--limit', '0'], /--limit: Input should be greater than or equal to 1/],
    [['map'], /expected one URL, got 0/],
  ];
  for (const [args, expected] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, expected);
  }
});
