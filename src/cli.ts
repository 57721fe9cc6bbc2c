// The `fetchdown` command: one URL to stdout (in this process, or through a Fetchdown API in remote mode), a site's
// map or crawl through the API, `fetchdown serve` for the HTTP API, `fetchdown worker` for crawl workers and
// `fetchdown mcp` for the MCP server on stdio.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { TSchema } from '@sinclair/typebox';
import { ConfigError, loadConfig, userDataDir, type Config } from './config.js';
import { ValidationError } from './errors.js';
import { CrawlRequest, MapRequest, type CrawlStatus } from './contract/crawl.js';
import { FetchRequest, type FetchResult } from './contract/fetch.js';
import { validateInput } from './contract/validate.js';
import { agentMode, type AgentOperations } from './operations/agent.js';
import { describeProgress, followCrawl, pageFile } from './operations/crawl-follow.js';
import { describeFailure } from './operations/failure.js';
import { createFileNamer } from './util/file-names.js';
import { API_VERSION } from './version.js';

const USAGE = `Usage:
  fetchdown <url> [--max-tokens N] [--query TEXT] [--format markdown|text|json] [--links inline|reference|none]
                  [--images keep|none] [--max-age SECONDS] [--include SELECTOR]... [--exclude SELECTOR]... [--verbose]
                  [--wait-for SELECTOR|MS] [--timeout MS] [--action JSON]... [--header 'Name: value']...
                  [--cookie name=value]... [--mobile] [--locale TAG] [--screenshot FILE.png|FILE.jpeg] [--full-page]
                  [--pages 1-5] [--page-markers]
  fetchdown map <url> [--limit N] [--search TEXT] [--json]
                      a site's URLs, one a line (--json: the API's answer with titles and sources)
  fetchdown crawl <url> --out DIR [--limit N] [--max-depth N] [--json]
                      crawl a site: one Markdown file per page in DIR with front matter; the paths on stdout
                      (--json: a summary at the end), progress on stderr; Ctrl-C cancels the crawl
  fetchdown serve     start the HTTP API (configured by the same environment variables as npm start)
  fetchdown worker    read crawl jobs from Redis (CACHE_URL, as the API processes) until SIGTERM
  fetchdown mcp       start the MCP server on stdio
  fetchdown stripe-setup  create the plans' Stripe products and prices (STRIPE_SECRET_KEY); safe to run again
  fetchdown --help | --version

A fetch runs in this process, or calls a Fetchdown API when FETCHDOWN_API_URL and FETCHDOWN_API_KEY are set; map
and crawl always call one.
--query with --max-tokens returns the passages that best match it, in page order, within the budget.
The content goes to stdout; --verbose adds the metadata as JSON on stderr. --max-age refetches a cached copy older
than that; --include and --exclude (CSS selectors, repeatable) keep only, or drop, the elements they match.
--wait-for, --action (one step as JSON: '{"type":"click","selector":"#more"}'), --mobile and --screenshot render in
the browser; --header and --cookie go to the page's own origin only; --screenshot writes the picture to FILE.
--pages reads only those pages of a PDF (3, 1-5, 2-4,7); --page-markers marks where each page begins.
Exit codes: 0 done, 1 the fetch failed, 2 bad usage or arguments, 3 bad configuration.`;

const EXIT = { ok: 0, failed: 1, usage: 2, config: 3, interrupted: 130 } as const;

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Without DATA_DIR: in a checkout, its data/ (as `npm start` there uses), not the cwd; an installed package (under
 * node_modules, as npx and global installs put it) must not write inside itself, so the per-user data directory.
 */
const DEFAULT_DATA_DIR = PACKAGE_ROOT.split(sep).includes('node_modules')
  ? userDataDir()
  : resolve(PACKAGE_ROOT, 'data');

function fail(message: string, code: number): never {
  process.stderr.write(`fetchdown: ${message}\n`);
  process.exit(code);
}

/**
 * Extraction threads unless EXTRACT_WORKERS says otherwise: none for one URL (nothing else waits for this process,
 * and starting a thread costs more than it saves), one for the MCP server, so a heavy page does not hold its stdio.
 */
const ONE_SHOT_WORKERS = '0';
const MCP_WORKERS = '1';

function readConfig(defaults: Record<string, string> = {}): Config {
  try {
    return loadConfig(undefined, { DATA_DIR: DEFAULT_DATA_DIR, ...defaults });
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`, EXIT.config);
    throw error;
  }
}

/** Writes and waits until the text is handed to the OS, so an exit right after cannot cut it short. */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((done) => stream.write(text, () => done()));
}

/** A command's flags and its one URL (exit 2 otherwise); --help prints the usage instead. */
async function parseFlags<T extends ParseArgsConfig['options']>(argv: string[], options: T) {
  if (argv.includes('--help') || argv.includes('-h')) {
    await write(process.stdout, `${USAGE}\n`);
    process.exit(EXIT.ok);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${USAGE}`, EXIT.usage);
  }
  const [url, ...more] = parsed.positionals;
  if (url === undefined || more.length > 0)
    fail(`expected one URL, got ${parsed.positionals.length}\n\n${USAGE}`, EXIT.usage);
  return { values: parsed.values, url };
}

/** A 422's issues with the names a CLI user typed: the positional url, else the flag (and which of a repeated one). */
function flagIssues(error: ValidationError): string {
  const lines = error.issues.map((i) => {
    const field = String([...i.loc].reverse().find((part) => typeof part === 'string'));
    const index = i.loc.at(-1);
    const which = typeof index === 'number' ? ` #${index + 1}` : '';
    return `${field === 'url' ? 'url' : `--${field.replace(/_/g, '-')}${which}`}: ${i.msg}`;
  });
  return lines.join('\n');
}

/**
 * Validation as the API does it (the same schema, just as strict): a flag's text becomes a number only if it is one.
 */
function validateFlags<T>(schema: TSchema, raw: Record<string, unknown>): T {
  try {
    return validateInput<T>(schema, raw, 'body');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return fail(flagIssues(error), EXIT.usage);
  }
}

const asInteger = (text: string): number | string => (/^-?\d+$/.test(text.trim()) ? Number(text) : text);

/** A failed operation as the API would answer it, on stderr; exit 2 for a 422, else 1. */
async function failWith(error: unknown): Promise<never> {
  if (error instanceof ValidationError) return fail(flagIssues(error), EXIT.usage);
  const { status, summary } = describeFailure(error);
  // The API hides internals from callers; here the caller is the operator, who needs them to report the bug.
  if (status === 500 && error instanceof Error) await write(process.stderr, `${error.stack ?? error.message}\n`);
  return fail(summary, status === 422 ? EXIT.usage : EXIT.failed);
}

async function fetchCommand(argv: string[]): Promise<void> {
  if (argv.includes('--version')) return void (await write(process.stdout, `${API_VERSION}\n`));
  const { values, url } = await parseFlags(argv, {
    'max-tokens': { type: 'string' },
    query: { type: 'string' },
    format: { type: 'string', default: 'markdown' },
    links: { type: 'string', default: 'inline' },
    images: { type: 'string', default: 'keep' },
    'max-age': { type: 'string' },
    include: { type: 'string', multiple: true },
    exclude: { type: 'string', multiple: true },
    verbose: { type: 'boolean', short: 'v', default: false },
    'wait-for': { type: 'string' },
    timeout: { type: 'string' },
    action: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    cookie: { type: 'string', multiple: true },
    mobile: { type: 'boolean' },
    locale: { type: 'string' },
    screenshot: { type: 'string' },
    'full-page': { type: 'boolean', default: false },
    pages: { type: 'string' },
    'page-markers': { type: 'boolean' },
  });
  const args = validateFlags<FetchRequest>(FetchRequest, {
    ...pageFlags(values),
    url,
    format: values.format,
    links: values.links,
    images: values.images,
    ...(values['max-tokens'] !== undefined && { max_tokens: asInteger(values['max-tokens']) }),
    ...(values['max-age'] !== undefined && { max_age: asInteger(values['max-age']) }),
    ...(values.include !== undefined && { include: values.include }),
    ...(values.exclude !== undefined && { exclude: values.exclude }),
    ...(values.query !== undefined && { query: values.query }),
    ...(values.pages !== undefined && { pages: values.pages }),
    ...(values['page-markers'] !== undefined && { page_markers: values['page-markers'] }),
  });

  const config = readConfig({ EXTRACT_WORKERS: ONE_SHOT_WORKERS });
  // Imported here, not at the top: `fetchdown mcp` and `--help` must not wait for the pipeline's modules.
  const { createAgentOperations } = await import('./pipeline.js');
  const handle = createAgentOperations(config);
  let result: FetchResult;
  try {
    result = await handle.operations.fetchUrl(args);
  } catch (error) {
    await handle.close();
    return failWith(error);
  }
  if (values.screenshot) await saveScreenshot(handle.operations, result, values.screenshot);
  await handle.close();
  if (values.verbose) {
    const { markdown: _content, document: _blocks, ...meta } = result;
    await write(process.stderr, `${JSON.stringify(meta, null, 2)}\n`);
  }
  const out = args.format === 'json' ? JSON.stringify(result, null, 2) : result.markdown;
  await write(process.stdout, out.endsWith('\n') ? out : `${out}\n`);
  process.exit(EXIT.ok);
}

/** `Name: value` and `name=value` flags as the request's headers and cookies (a malformed one is a usage error). */
function pairs(flags: string[] | undefined, separator: string, flag: string): Record<string, string> | undefined {
  if (!flags) return undefined;
  return Object.fromEntries(
    flags.map((pair) => {
      const at = pair.indexOf(separator);
      if (at <= 0)
        fail(`--${flag}: expected ${flag === 'header' ? "'Name: value'" : 'name=value'}, got ${pair}`, EXIT.usage);
      return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    }),
  );
}

/** The page flags of `fetchdown <url>` as the request's fields (contract/interaction.ts). */
function pageFlags(values: Record<string, string | boolean | string[] | undefined>): Record<string, unknown> {
  const text = (name: string) => values[name] as string | undefined;
  const actions = (values.action as string[] | undefined)?.map((json) => {
    try {
      return JSON.parse(json) as unknown;
    } catch {
      return fail(`--action: not JSON: ${json}`, EXIT.usage);
    }
  });
  const shot = text('screenshot');
  return {
    ...(text('wait-for') !== undefined && { wait_for: asInteger(text('wait-for')!) }),
    ...(text('timeout') !== undefined && { timeout: asInteger(text('timeout')!) }),
    ...(actions && { actions }),
    ...(values.header && { headers: pairs(values.header as string[], ':', 'header') }),
    ...(values.cookie && { cookies: pairs(values.cookie as string[], '=', 'cookie') }),
    ...(values.mobile !== undefined && { mobile: values.mobile }),
    ...(text('locale') !== undefined && { locale: text('locale') }),
    ...(shot && { screenshot: { full_page: values['full-page'], format: /\.jpe?g$/i.test(shot) ? 'jpeg' : 'png' } }),
  };
}

/** Writes the page's screenshot to `file`: read back while this process (or the API) still holds it. */
async function saveScreenshot(operations: AgentOperations, result: FetchResult, file: string): Promise<void> {
  const name = result.screenshot_url?.split('/').pop();
  const shot = name ? await operations.screenshot(name) : null;
  if (!shot) return fail(`--screenshot: the picture could not be read back`, EXIT.failed);
  await writeFile(file, shot.bytes);
}

/** The API's operations for a command that runs only on a server (exit 3 without FETCHDOWN_API_URL and _KEY). */
async function remoteOperations(command: string) {
  const config = readConfig();
  const { FETCHDOWN_API_URL: baseUrl, FETCHDOWN_API_KEY: apiKey } = config;
  if (!baseUrl || !apiKey)
    fail(
      `${command} runs on a Fetchdown server: set FETCHDOWN_API_URL (the server) and FETCHDOWN_API_KEY (your API ` +
        'key of it)',
      EXIT.config,
    );
  const { createRemoteOperations } = await import('./operations/remote.js');
  // A search's deadline: a map reads a site's sitemaps and its start page.
  return createRemoteOperations({ baseUrl, apiKey, timeoutMs: config.FETCH_TIMEOUT_MS * 3 });
}

async function mapCommand(argv: string[]): Promise<void> {
  const { values, url } = await parseFlags(argv, {
    limit: { type: 'string' },
    search: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const args = validateFlags<MapRequest>(MapRequest, {
    url,
    ...(values.limit !== undefined && { limit: asInteger(values.limit) }),
    ...(values.search !== undefined && { search: values.search }),
  });
  const operations = await remoteOperations('map');
  const result = await operations.mapSite(args).catch(failWith);
  const out = values.json ? JSON.stringify(result, null, 2) : result.links.map((link) => link.url).join('\n');
  await write(process.stdout, out ? `${out}\n` : '');
}

/** How often `fetchdown crawl` asks for progress, and prints a line of it when stderr is not a terminal. */
const POLL_MS = 1000;
const PROGRESS_LINE_MS = 5000;
const BAR_WIDTH = 24;

/** A progress bar redrawn in place on a terminal; a line every PROGRESS_LINE_MS otherwise (logs, CI). */
function createProgress(stream: NodeJS.WriteStream) {
  const started = Date.now();
  let printed = 0;
  return {
    show(status: CrawlStatus, last = false) {
      if (stream.isTTY) {
        const line = describeProgress(status, Date.now() - started, BAR_WIDTH);
        stream.write(`\r\x1b[K${line}${last ? '\n' : ''}`);
      } else if (last || Date.now() - printed >= PROGRESS_LINE_MS) {
        printed = Date.now();
        stream.write(`fetchdown: ${describeProgress(status, printed - started)}\n`);
      }
    },
    /** Takes the bar off the terminal's line before another line is written there; the next show draws it again. */
    clear() {
      if (stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}

async function crawlCommand(argv: string[]): Promise<void> {
  const { values, url } = await parseFlags(argv, {
    out: { type: 'string' },
    limit: { type: 'string' },
    'max-depth': { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const args = validateFlags<CrawlRequest>(CrawlRequest, {
    url,
    ...(values.limit !== undefined && { limit: asInteger(values.limit) }),
    ...(values['max-depth'] !== undefined && { max_depth: asInteger(values['max-depth']) }),
  });
  const out = values.out ?? fail(`--out: the directory to write the pages to is required\n\n${USAGE}`, EXIT.usage);
  const cannot = (what: string) => (error: Error) => fail(`cannot ${what}: ${error.message}`, EXIT.failed);
  const operations = await remoteOperations('crawl');
  await mkdir(out, { recursive: true }).catch(cannot(`create ${out}`));
  const created = await operations.startCrawl(args).catch(failWith);
  const progress = createProgress(process.stderr);
  const nameOf = createFileNamer();
  const files: { url: string; file: string }[] = [];
  let last: CrawlStatus | undefined;
  // Ctrl-C cancels the crawl on the server and follows it until it settles (pages being read finish and are written,
  // nothing more is charged); a second Ctrl-C leaves at once.
  let interrupted = false;
  const onInterrupt = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    progress.clear();
    process.stderr.write(`fetchdown: cancelling crawl ${created.id} (Ctrl-C again to leave at once)\n`);
    operations.cancelCrawl({ id: created.id }).catch(failWith);
  };
  process.on('SIGINT', onInterrupt);
  try {
    for await (const { status, pages } of followCrawl(operations, created.id, POLL_MS)) {
      for (const page of pages) {
        const file = join(out, nameOf(page.url));
        await writeFile(file, pageFile(page)).catch(cannot(`write ${file}`));
        files.push({ url: page.url, file });
        if (values.json) continue;
        progress.clear();
        await write(process.stdout, `${file}\n`);
      }
      if (status.status === 'queued' || status.status === 'running') progress.show(status);
      last = status;
    }
  } catch (error) {
    progress.clear();
    await write(process.stderr, `fetchdown: crawl ${created.id} could not be followed (${created.status_url})\n`);
    return failWith(error);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  // followCrawl gives at least one status before it ends.
  const { id, status, stop_reason, error, counts } = last!;
  progress.show(last!, true);
  if (values.json) {
    const summary = { id, status, stop_reason, error, counts, files };
    await write(process.stdout, `${JSON.stringify(summary, null, 2)}\n`);
  }
  if (status !== 'completed')
    fail(`crawl ${id} ${status}: ${error ?? stop_reason}`, interrupted ? EXIT.interrupted : EXIT.failed);
}

/** One line per plan on stdout; exit code 3 without STRIPE_SECRET_KEY, 1 if Stripe refused. */
async function stripeSetupCommand(): Promise<void> {
  const { setUpStripePlans } = await import('./operations/stripe-setup.js');
  const setup = await setUpStripePlans(readConfig());
  if (setup.ok) {
    for (const line of setup.plans) {
      process.stdout.write(`${line.plan}\t${line.lookupKey}\t${line.priceId}\t${line.action}\n`);
    }
  } else if (setup.reason === 'no_secret_key') {
    process.stderr.write('fetchdown: stripe-setup needs STRIPE_SECRET_KEY (a test-mode key sk_test_… to try it)\n');
    process.exitCode = EXIT.config;
  } else {
    process.stderr.write(`fetchdown: Stripe refused the set-up: ${setup.detail}\n`);
    process.exitCode = EXIT.failed;
  }
}

async function runCli(argv: string[]): Promise<void> {
  const [command] = argv;
  if (command === 'serve') {
    const { startServer } = await import('./main.js');
    return startServer({ DATA_DIR: DEFAULT_DATA_DIR });
  }
  if (command === 'mcp') {
    const [{ runStdioServer }, { deferOperations }] = await Promise.all([
      import('./mcp/stdio.js'),
      import('./operations/deferred.js'),
    ]);
    const config = readConfig({ EXTRACT_WORKERS: MCP_WORKERS });
    const create = async () => (await import('./pipeline.js')).createAgentOperations(config);
    return runStdioServer(config, deferOperations(agentMode(config), create));
  }
  if (command === 'worker') {
    const { startWorker } = await import('./main.js');
    return startWorker({ DATA_DIR: DEFAULT_DATA_DIR });
  }
  if (command === 'map') return mapCommand(argv.slice(1));
  if (command === 'crawl') return crawlCommand(argv.slice(1));
  if (command === 'stripe-setup') return stripeSetupCommand();
  if (command === undefined) fail(`no URL given\n\n${USAGE}`, EXIT.usage);
  return fetchCommand(argv);
}

await runCli(process.argv.slice(2));
