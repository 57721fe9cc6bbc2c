// The only reader of process.env: one schema gives defaults, coercion, validation and the Config type.
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Bool = (def: boolean) => Type.Boolean({ default: def });
const Int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  Type.Integer({ default: def, minimum: min, maximum: max });

export const ConfigSchema = Type.Object({
  // production (the Docker image sets it): errors callers read say nothing of how the server is set up, e.g. a refused
  // private address does not name FETCH_ALLOW_PRIVATE_NETWORKS. Only wording depends on it, never a check (the SSRF
  // guard is on in every mode: a guard that only production turns on is off wherever someone forgot to say so).
  NODE_ENV: Type.String({ default: 'development', minLength: 1 }),
  PORT: Int(8080, 0, 65535),
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  CACHE_TTL_SECONDS: Int(21600, 1),
  CACHE_URL: Type.Optional(Type.String({ pattern: '^(redis|rediss|memory)://' })),
  CACHE_MEMORY_ENTRIES: Int(500, 0),
  SCREENSHOT_TTL_SECONDS: Int(86400, 60),
  FETCH_TIMEOUT_MS: Int(20000, 100),
  FETCH_MAX_BYTES: Int(10 * 1024 * 1024, 1024),
  FETCH_MAX_REDIRECTS: Int(5, 0, 20),
  FETCH_ALLOW_PRIVATE_NETWORKS: Bool(false),
  FETCH_CONCURRENCY: Int(64, 1, 1024),
  // Extraction threads (src/fetchers/conversions.ts): HTML extraction, Markdown, text, token counts and PDF layout run
  // off the event loop on this many worker threads (default: one per core; 0: in the calling thread, no deadline).
  // Up to EXTRACT_QUEUE_MAX pages wait for a thread, beyond that a fetch answers 503 extraction_busy. A page whose
  // extraction has used EXTRACT_TIMEOUT_MS of its thread's CPU (Linux; wall time elsewhere) stops with its thread (422
  // extraction_timeout, the page's fault); one that has not had that much CPU within EXTRACT_WALL_TIMEOUT_MS of its
  // arrival (0: twice EXTRACT_TIMEOUT_MS), its wait for a thread included, is the server's (503 server_busy).
  // A thread is replaced after EXTRACT_WORKER_MAX_TASKS pages or once its heap passes half of EXTRACT_WORKER_HEAP_MB,
  // its hard limit; not sooner, as a new thread runs its first ~1,000 pages 1.5–3× slower while V8 compiles the code
  // again.
  // On Linux the threads run EXTRACT_WORKER_NICE steps nicer than the event loop, so it never waits behind a page.
  // A thread starts when a page first needs it; a server starts EXTRACT_WORKERS_WARM of them (at most EXTRACT_WORKERS)
  // before its first request, each ~300 ms of CPU and ~80 MB of memory that then wait for pages (docs/operations.md).
  EXTRACT_WORKERS: Int(availableParallelism(), 0, 64),
  EXTRACT_WORKERS_WARM: Int(0, 0, 64),
  EXTRACT_QUEUE_MAX: Int(64, 0, 10000),
  EXTRACT_TIMEOUT_MS: Int(15000, 100),
  EXTRACT_WALL_TIMEOUT_MS: Int(0, 0),
  EXTRACT_WORKER_MAX_TASKS: Int(10000, 1),
  EXTRACT_WORKER_HEAP_MB: Int(1024, 64, 16384),
  EXTRACT_WORKER_NICE: Int(10, 0, 19),
  USER_AGENT: Type.String({ default: 'FetchdownBot/1.0 (+https://github.com/fetchdown/fetchdown)', minLength: 1 }),
  // Fetchers (src/fetchers/README.md): robots.txt, PDF limits, the headless browser and the reader provider.
  ROBOTS_TXT: Type.Union([Type.Literal('respect'), Type.Literal('ignore')], { default: 'respect' }),
  PDF_MAX_PAGES: Int(300, 1, 100000),
  // Zip-based documents (DOCX, XLSX, PPTX, ODS, EPUB): at most this many entries, inflating to at most this many bytes
  // together (zip bombs are refused before anything is inflated); spreadsheets and CSV: rows read per sheet.
  DOCUMENT_MAX_ENTRIES: Int(10000, 1),
  DOCUMENT_MAX_UNCOMPRESSED_BYTES: Int(256 * 1024 * 1024, 1024),
  DOCUMENT_MAX_ROWS: Int(5000, 1),
  // Pages of one document read by OCR (an image is one; a PDF's pages without a text layer); 0 turns OCR off.
  OCR_MAX_PAGES: Int(20, 0, 1000),
  CHROMIUM_PATH: Type.String({ default: '/usr/bin/chromium', minLength: 1 }),
  BROWSER_WS_ENDPOINT: Type.Optional(Type.String({ pattern: '^(wss?|https?)://' })),
  BROWSER_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  BROWSER_POOL_SIZE: Int(4, 0, 64),
  BROWSER_QUEUE_MAX: Int(32, 0, 10000),
  BROWSER_WAIT_MS: Int(5000, 0, 60000),
  READER_BASE_URL: Type.String({ default: 'https://r.jina.ai/', pattern: '^https?://' }),
  READER_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // Web search for POST /search and the search_and_fetch tool; unset means search answers 503 search_not_configured.
  SEARCH_PROVIDER: Type.Optional(Type.Union([Type.Literal('searxng'), Type.Literal('brave')])),
  SEARCH_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  SEARCH_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // The default budget of fetch_url, fetch_multiple (shared by the pages) and search_and_fetch when the caller sets no
  // size (src/mcp/default-budget.ts): MCP clients refuse, cut or set aside large results (Claude Code: over 25,000
  // tokens, or over 50,000 characters, which it writes to a file). Tokens of content, and characters of the whole
  // result as a client reads it (its JSON or its text), whichever is reached first; 0: no budget of that kind.
  MCP_DEFAULT_MAX_TOKENS: Int(10000, 0),
  MCP_DEFAULT_MAX_CHARS: Int(48000, 0),
  // Remote mode of the MCP server and CLI: call this Fetchdown API with this key instead of fetching in-process.
  FETCHDOWN_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  FETCHDOWN_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // Where the public reaches this server: the absolute links of /spec, /llms.txt and /.well-known/mcp.json, sign-in
  // links. Unset: the address this server listens on (servedBaseUrl).
  PUBLIC_BASE_URL: Type.String({ default: '', pattern: '^(https?://.*)?$' }),
  // Accounts, keys, sessions and usage: a SQLite file under DATA_DIR unless DATABASE_URL names a Postgres database.
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  ANONYMOUS_ACCESS: Bool(true),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ default: 'Fetchdown <no-reply@localhost>', minLength: 3 }),
  // Active (unrevoked) API keys an account may hold; one more is 409 too_many_keys. Keys share the account's limits.
  MAX_KEYS_PER_ACCOUNT: Int(20, 1, 10000),
  // OAuth for the remote MCP endpoint (src/oauth/): an access token lasts this long, a refresh token (used once, then
  // replaced) this long; a client's metadata document is read again once its copy is this old.
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: Int(3600, 60, 86400),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: Int(30 * 86400, 3600, 365 * 86400),
  OAUTH_CLIENT_DOCUMENT_TTL_SECONDS: Int(3600, 0, 86400),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  FREE_MONTHLY_CREDITS: Int(500, 0),
  STARTER_MONTHLY_CREDITS: Int(20000, 0),
  PRO_MONTHLY_CREDITS: Int(100000, 0),
  SCALE_MONTHLY_CREDITS: Int(500000, 0),
  // How long a process's lease on an account's credits lasts without a write from it: a process that dies leaves its
  // leases to be reclaimed (journal written, the rest returned) this long after its last write, at most 1.5x it.
  CREDIT_LEASE_TTL_MS: Int(30000, 1000, 3600000),
  // Billing through Stripe (src/billing/): without STRIPE_SECRET_KEY every /billing route answers 503.
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_API_BASE: Type.String({ default: 'https://api.stripe.com', pattern: '^https?://' }),
  // Stripe Price ids of the plans; unset, the prices with lookup keys fetchdown_starter… are used (fetchdown
  // stripe-setup).
  STRIPE_PRICE_STARTER: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_PRICE_PRO: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_PRICE_SCALE: Type.Optional(Type.String({ minLength: 1 })),
  // Requests per window (0 = unlimited): per client IP for anonymous callers, per account by plan otherwise (its keys
  // share one count; its session-cookie routes have a count of their own).
  RATE_LIMIT_WINDOW_SECONDS: Int(60, 1, 86400),
  RATE_LIMIT_ANONYMOUS: Int(30, 0),
  // Metered requests served per client IP per calendar month without a key (0 = unlimited): a trial of the service,
  // smaller than the free plan's 500, so that dropping a key is no way around the plans.
  ANONYMOUS_MONTHLY_REQUESTS: Int(100, 0),
  RATE_LIMIT_FREE: Int(60, 0),
  RATE_LIMIT_STARTER: Int(300, 0),
  RATE_LIMIT_PRO: Int(1000, 0),
  RATE_LIMIT_SCALE: Int(3000, 0),
  // Sign-up and login requests per client IP per hour (each sends an e-mail); 0 = unlimited.
  RATE_LIMIT_MAIL_PER_HOUR: Int(10, 0),
  // OAuth client registrations (POST /oauth/register: open to anyone, a row each) per client IP per hour; 0 = no limit.
  // Six times the MCP SDK's own default (20), as hosted clients register each of their users from shared addresses.
  RATE_LIMIT_OAUTH_REGISTRATIONS_PER_HOUR: Int(120, 0),
  // Failed credentials (unknown or revoked API keys, bad sign-in links, wrong admin tokens) per minute, counted per
  // client IP and per target; past it, 429. 0 = unlimited.
  RATE_LIMIT_AUTH_FAILURES: Int(10, 0),
  // Which peers may set X-Forwarded-For (the client IP of per-IP limits): true, false, or addresses/CIDRs/range names.
  TRUST_PROXY: Type.String({ default: 'loopback', minLength: 1 }),
  // GET /metrics (Prometheus): a bearer token scrapers send; unset, only callers on this machine may read it.
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  // Crawls (POST /crawl): jobs on BullMQ when CACHE_URL is Redis (API processes only queue; `fetchdown worker`
  // processes read), else on a SQLite queue under DATA_DIR read by the server's own process.
  // Pages one worker process reads at once.
  CRAWL_CONCURRENCY: Int(4, 1, 256),
  // Requests at once to one host, and the least time between two (robots.txt's Crawl-delay when longer), across
  // every worker.
  CRAWL_HOST_CONCURRENCY: Int(2, 1, 64),
  CRAWL_HOST_DELAY_MS: Int(0, 0, 60000),
  // How long a crawl and its pages are kept after it starts.
  CRAWL_RETENTION_HOURS: Int(24, 1, 24 * 30),
  // Characters of content one crawl may keep (its pages' results together); past it the crawl stops (byte_cap).
  CRAWL_MAX_BYTES: Int(256 * 1024 * 1024, 1024),
  // Characters of content one account's kept crawls may hold together: past it its crawls stop (account_byte_cap) and
  // new ones are refused (409 crawl_storage_full) until older ones pass their retention.
  CRAWL_ACCOUNT_MAX_BYTES: Int(1024 * 1024 * 1024, 1024),
  // Query-string variants of one path a crawl reads (/search?q=1, ?q=2 …) before it calls the path a trap.
  CRAWL_MAX_QUERY_VARIANTS: Int(50, 1, 100000),
  // The BullMQ queue crawl jobs go to on Redis: API processes and the workers that serve them name the same one; a
  // second deployment (or a test) on the same Redis names its own.
  CRAWL_QUEUE_NAME: Type.String({ default: 'fetchdown-crawl', pattern: '^[A-Za-z0-9_.-]{1,100}$' }),
  // How long a crawl job (and the page it claimed) stays its worker's after the worker stops answering (killed,
  // frozen): after it, another worker reads the page. BullMQ renews a live worker's lock well before; shorter notices a
  // dead worker sooner, at the cost of a renewal every half of it.
  CRAWL_JOB_LOCK_MS: Int(30000, 1000, 600000),
  // On SIGTERM: how long requests in flight may take to finish before the process closes anyway.
  SHUTDOWN_GRACE_MS: Int(25000, 0, 600000),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

/** Builds the config from an environment (process.env by default); throws ConfigError naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, defaults: Record<string, string> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
    const value = env[name] || defaults[name]; // defaults: a caller's own, e.g. the CLI's data dir in the checkout
    if (value === undefined || value === '') continue; // empty means unset, as in most .env files
    if (schema.type === 'boolean') {
      const v = value.trim().toLowerCase();
      if (TRUE.has(v)) raw[name] = true;
      else if (FALSE.has(v)) raw[name] = false;
      else throw new ConfigError(`${name}: expected 1/0/true/false, got "${value}"`);
    } else if (schema.type === 'integer') {
      if (!/^\s*\d+\s*$/.test(value)) throw new ConfigError(`${name}: expected a whole number, got "${value}"`);
      raw[name] = Number(value);
    } else raw[name] = value;
  }
  const config = Value.Default(ConfigSchema, raw);
  const error = Value.Errors(ConfigSchema, config).First();
  if (error) {
    const name = error.path.replace(/^\//, '');
    // A union of literals (LOG_LEVEL) reads "Expected union value": name the values it takes instead.
    const choices = (error.schema.anyOf as { const?: unknown }[] | undefined)
      ?.map((option) => option.const)
      .filter((c) => c !== undefined);
    const expected = choices?.length ? `expected one of ${choices.map(String).join(', ')}` : error.message;
    throw new ConfigError(`${name}: ${expected} (got "${String(error.value)}")`);
  }
  checkCombinations(config as Config);
  const built = config as Config;
  // Without a trailing slash, so that base + '/path' is one URL (the OAuth issuer and resource must match exactly).
  const base = (built.PUBLIC_BASE_URL || servedBaseUrl(built.HOST, built.PORT)).replace(/\/+$/, '');
  return Object.freeze({ ...built, PUBLIC_BASE_URL: base });
}

/**
 * The URL of the address a server listens on: `localhost` for a loopback or every-interface bind (what a browser on
 * the same machine opens), else the host itself.
 */
export function servedBaseUrl(host: string, port: number): string {
  const local = ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'].includes(host);
  const name = local ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Variables that only make sense together: refused at start rather than failing on the first request. */
function checkCombinations(config: Config): void {
  if (config.SEARCH_PROVIDER === 'searxng' && !config.SEARCH_BASE_URL) {
    throw new ConfigError('SEARCH_BASE_URL: required when SEARCH_PROVIDER=searxng (the URL of the SearXNG instance)');
  }
  if (config.SEARCH_PROVIDER === 'brave' && !config.SEARCH_API_KEY) {
    throw new ConfigError(
      'SEARCH_API_KEY: required when SEARCH_PROVIDER=brave (the Brave Search API subscription token)',
    );
  }
  if (!config.SEARCH_PROVIDER && (config.SEARCH_BASE_URL || config.SEARCH_API_KEY)) {
    throw new ConfigError('SEARCH_PROVIDER: set it to searxng or brave, or unset SEARCH_BASE_URL and SEARCH_API_KEY');
  }
  if (config.BROWSER_API_KEY && !config.BROWSER_WS_ENDPOINT) {
    throw new ConfigError(
      'BROWSER_WS_ENDPOINT: required when BROWSER_API_KEY is set (the remote browser the key is for)',
    );
  }
  if (config.MCP_DEFAULT_MAX_CHARS > 0 && config.MCP_DEFAULT_MAX_CHARS < 10000) {
    throw new ConfigError(
      `MCP_DEFAULT_MAX_CHARS: 0 (no character budget) or at least 10000, room for a page besides its metadata (got "${config.MCP_DEFAULT_MAX_CHARS}")`,
    );
  }
  if (config.EXTRACT_WALL_TIMEOUT_MS > 0 && config.EXTRACT_WALL_TIMEOUT_MS < config.EXTRACT_TIMEOUT_MS) {
    throw new ConfigError(
      'EXTRACT_WALL_TIMEOUT_MS: at least EXTRACT_TIMEOUT_MS, or no page could use its CPU limit (0: twice that limit)',
    );
  }
  if (Boolean(config.FETCHDOWN_API_URL) !== Boolean(config.FETCHDOWN_API_KEY)) {
    const missing = config.FETCHDOWN_API_URL ? 'FETCHDOWN_API_KEY' : 'FETCHDOWN_API_URL';
    throw new ConfigError(`${missing}: remote mode needs both FETCHDOWN_API_URL and FETCHDOWN_API_KEY`);
  }
}

/** Whether the server runs in production (NODE_ENV=production), where errors keep its set-up to itself. */
export function isProduction(config: Pick<Config, 'NODE_ENV'>): boolean {
  return config.NODE_ENV === 'production';
}

/** The User-Agent product token robots.txt rules and site operators match on. */
export const BOT_TOKEN = 'FetchdownBot';

/**
 * The platform's per-user data directory for Fetchdown, where an installed package keeps its cache and database when
 * DATA_DIR is unset: $XDG_DATA_HOME or ~/.local/share on Linux, ~/Library/Application Support on macOS,
 * %LOCALAPPDATA% on Windows.
 */
export function userDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'fetchdown');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'fetchdown');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'fetchdown');
}
