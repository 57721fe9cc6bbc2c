// Past one page: POST /map lists a site's URLs; POST /crawl reads a site as a job (GET /crawl/{id} for its progress
// and pages, DELETE to cancel, GET /account/crawls for the account's latest). The page results are the fetch result's
// shape; the MCP tools' shapes of the same (pages cut to their first part) are at the end.
import { Type, type Static } from '@sinclair/typebox';
import { FetchResult, FORMATS, MAX_URL_LENGTH, StringEnum, Url } from './fetch.js';

export const MAX_MAP_LINKS = 5000;
/** The most pages of one crawl whatever the plan (plans.ts gives each plan's own maximum, at least 10,000). */
export const MAX_CRAWL_PAGES = 100_000;
export const MAX_CRAWL_DEPTH = 100;
export const MAX_PATH_PATTERNS = 50;
export const MAX_PATH_PATTERN_LENGTH = 300;
export const CRAWL_PAGE_LIST_LIMIT = 100;
export const SITEMAP_MODES = ['include', 'only', 'skip'] as const;
export const CRAWL_STATUSES = ['queued', 'running', 'completed', 'cancelled', 'failed'] as const;
export const CRAWL_EVENTS = ['crawl.started', 'crawl.page', 'crawl.completed', 'crawl.failed'] as const;
export type CrawlEvent = (typeof CRAWL_EVENTS)[number];

const PathPatterns = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: MAX_PATH_PATTERN_LENGTH }), {
      maxItems: MAX_PATH_PATTERNS,
      description,
      examples: [['^/docs/']],
    }),
  );

const ScopeFields = {
  sitemap: StringEnum(SITEMAP_MODES, {
    default: 'include',
    description:
      "include (default): the site's sitemaps and its pages' links; only: sitemaps alone; skip: links alone.",
  }),
  include_paths: PathPatterns(
    'Regular expressions over a URL\'s path and query ("/docs/?page=2"): only URLs matching one are kept.',
  ),
  exclude_paths: PathPatterns("Regular expressions over a URL's path and query: a URL matching one is left out."),
};

export const MapRequest = Type.Object(
  {
    url: Url,
    limit: Type.Integer({ minimum: 1, maximum: MAX_MAP_LINKS, default: 100, description: 'The most URLs to return.' }),
    search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Rank the URLs by relevance to this query.' }),
    ),
    include_subdomains: Type.Boolean({
      default: false,
      description: "Keep URLs of the site's other subdomains (www. and the bare domain are always the same site).",
    }),
    ...ScopeFields,
  },
  { additionalProperties: false },
);
export type MapRequest = Static<typeof MapRequest>;

export const MAP_SOURCES = ['sitemap', 'llms.txt', 'page'] as const;

export const MapResult = Type.Object({
  url: Type.String({ description: 'The start URL as requested.' }),
  links: Type.Array(
    Type.Object({
      url: Type.String(),
      title: Type.Optional(Type.String()),
      source: StringEnum(MAP_SOURCES, { description: 'Where the URL was found.' }),
    }),
  ),
  credits: Type.Number({ description: 'Price of this map.' }),
});
export type MapResult = Static<typeof MapResult>;

export const Webhook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' }),
    events: Type.Array(StringEnum(CRAWL_EVENTS), {
      minItems: 1,
      uniqueItems: true,
      default: [...CRAWL_EVENTS],
      description: 'The events to deliver (all by default).',
    }),
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 200,
        description:
          'The key deliveries are signed with (Fetchdown-Signature); one is made and answered when left out.',
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }), {
        maxProperties: 20,
        description: 'Headers sent with every delivery (an authorization of your own).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Webhook = Static<typeof Webhook>;

export const CrawlRequest = Type.Object(
  {
    url: Url,
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_CRAWL_PAGES,
      default: 100,
      description: "The most pages to read (the plan's maximum applies: at least 10,000).",
    }),
    max_depth: Type.Integer({
      minimum: 0,
      maximum: MAX_CRAWL_DEPTH,
      default: 10,
      description: 'Links followed from the start page (0: the start page and the sitemaps alone).',
    }),
    allow_subdomains: Type.Boolean({ default: false, description: "Follow links to the site's other subdomains." }),
    allow_external: Type.Boolean({ default: false, description: 'Follow links to other sites.' }),
    format: StringEnum(FORMATS, { default: 'markdown', description: 'The format of each page.' }),
    max_tokens_each: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 1,
      default: null,
      description: 'Trim each page to at most this many tokens.',
    }),
    webhook: Type.Optional(Webhook),
    ...ScopeFields,
  },
  { additionalProperties: false },
);
export type CrawlRequest = Static<typeof CrawlRequest>;

export const CrawlId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type CrawlId = Static<typeof CrawlId>;

export const CrawlPageQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 32, description: 'next_cursor of the previous answer.' })),
    limit: Type.Integer({ minimum: 1, maximum: CRAWL_PAGE_LIST_LIMIT, default: 20 }),
  },
  { additionalProperties: false },
);
export type CrawlPageQuery = Static<typeof CrawlPageQuery>;

export const CrawlCreated = Type.Object({
  id: Type.String(),
  status: StringEnum(CRAWL_STATUSES),
  status_url: Type.String({ description: 'GET it for progress and pages.' }),
  webhook_secret: Type.Optional(
    Type.String({
      description: "The webhook's signing key (the one given, or one made): keep it to check deliveries.",
    }),
  ),
});
export type CrawlCreated = Static<typeof CrawlCreated>;

const Counts = Type.Object({
  discovered: Type.Integer({ description: 'URLs in scope, queued to be read (at most `limit`).' }),
  fetched: Type.Integer(),
  failed: Type.Integer(),
  skipped_robots: Type.Integer({ description: 'URLs robots.txt refused.' }),
  blocked: Type.Integer({ description: 'URLs refused by the SSRF guard (private addresses).' }),
  credits: Type.Number({ description: 'Credits charged so far.' }),
});

export const CrawlStatus = Type.Object({
  id: Type.String(),
  url: Type.String(),
  status: StringEnum(CRAWL_STATUSES),
  stop_reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why it stopped: done (nothing left in scope), limit, credits_exhausted, byte_cap, account_byte_cap ' +
      "(the account's kept crawls reached CRAWL_ACCOUNT_MAX_BYTES), cancelled, or " +
      'start_failed with `error`. A crawl that stops for credits or bytes is still `running`, with its reason, until ' +
      'the pages being read finish: once `completed`, its counts and pages are final.',
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.String({ description: 'When the crawl and its pages are deleted.' }),
  counts: Counts,
  pages: Type.Array(FetchResult, { description: 'Pages read, in the order they were read.' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next pages.' }),
});
export type CrawlStatus = Static<typeof CrawlStatus>;

export const CrawlErrors = Type.Object({
  id: Type.String(),
  errors: Type.Array(
    Type.Object({ url: Type.String(), code: Type.String(), status: Type.Integer(), detail: Type.String() }),
  ),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type CrawlErrors = Static<typeof CrawlErrors>;

export const CrawlList = Type.Array(
  Type.Object({
    id: Type.String(),
    url: Type.String(),
    status: StringEnum(CRAWL_STATUSES),
    stop_reason: Type.Union([Type.String(), Type.Null()]),
    discovered: Type.Integer(),
    fetched: Type.Integer(),
    failed: Type.Integer(),
    credits: Type.Number(),
    created_at: Type.String(),
  }),
  { description: "The account's latest crawls, newest first." },
);
export type CrawlList = Static<typeof CrawlList>;

/** crawl_status's arguments: GET /crawl/{id}'s path and query in one object. */
export const CrawlStatusArgs = Type.Object(
  { ...CrawlId.properties, ...CrawlPageQuery.properties },
  {
    additionalProperties: false,
  },
);
export type CrawlStatusArgs = Static<typeof CrawlStatusArgs>;

/** map_site's result: POST /map's, with the links left out to fit the tool's character budget counted. */
export const MapToolResult = Type.Object({
  ...MapResult.properties,
  links_omitted: Type.Optional(Type.Integer({ description: 'Links left out to fit the result into its budget.' })),
});
export type MapToolResult = Static<typeof MapToolResult>;

/** crawl_status's result: GET /crawl/{id}'s, each page cut to its first part. */
export const CrawlStatusToolResult = Type.Object({
  ...Type.Omit(CrawlStatus, ['pages']).properties,
  pages: Type.Array(
    Type.Object({
      url: Type.String(),
      title: Type.Union([Type.String(), Type.Null()]),
      token_count: Type.Integer({ description: 'Tokens of the content the crawl kept (metadata.token_count).' }),
      credits: Type.Number(),
      markdown: Type.String({ description: 'The first part of the content (fetch_url reads it whole).' }),
      cut: Type.Boolean({ description: 'Whether `markdown` is only the first part.' }),
    }),
  ),
});
export type CrawlStatusToolResult = Static<typeof CrawlStatusToolResult>;
