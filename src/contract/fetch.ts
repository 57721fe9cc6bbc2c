// The wire contract of fetching: request and response schemas of fetch, batch, search, estimate and cache, the one
// source for validation (every surface), serialisation and /openapi.json.
import { Type, type Static } from '@sinclair/typebox';
import { IMAGE_STYLES, LINK_STYLES } from '../extract/formats/styles.js';
import { DOCUMENT_TYPES } from '../fetchers/documents/types.js';
import { DocumentFields } from './document.js';
import { InteractionFields } from './interaction.js';

export const MAX_URL_LENGTH = 2083;
export const MAX_BATCH_URLS = 20;
export const FORMATS = ['markdown', 'text', 'json'] as const;
export type Format = (typeof FORMATS)[number];
const FETCHERS = ['html', 'reader', 'browser', 'pdf'] as const;
export const FETCHER_CHOICES = ['auto', ...FETCHERS] as const;

export const StringEnum = <T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** The `links` and `images` fields: how links and images are written (rendered per request from one cached copy). */
const StyleFields = {
  links: StringEnum(LINK_STYLES, {
    default: 'inline',
    description:
      'inline (default): [text](url). reference: [text][n] with a list of `[n]: url` at the end, ' +
      'one number per distinct URL in order of first appearance; each part of a trimmed read ' +
      'lists the references it uses. none: links become their text, no URLs. No effect on format ' +
      'text.',
  }),
  images: StringEnum(IMAGE_STYLES, {
    default: 'keep',
    description: 'keep (default) or none: drop every image, linked images included. No effect on format text.',
  }),
};

/** Freshness and selection: `max_age`, `include`, `exclude`; on /fetch, /fetch/batch, GET /r/ and the MCP tools. */
export const MAX_SELECTORS = 20;
export const MAX_SELECTOR_LENGTH = 200;
const Selectors = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: MAX_SELECTOR_LENGTH }), {
      maxItems: MAX_SELECTORS,
      description,
      examples: [['main article', '.post-body']],
    }),
  );
const FreshnessAndSelectionFields = {
  max_age: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'Seconds: a cached copy older than this is fetched again (0: always fetch). `cache.age_seconds` says ' +
        'how old the answer is; a refetch that replaced a copy says in fetch_info.changed whether the content changed.',
    }),
  ),
  include: Selectors(
    'CSS selectors (at most 20, each at most 200 characters): only the elements they match are extracted, in ' +
      'document order. HTML pages only; the cached page is reused, never fetched again for another selection.',
  ),
  exclude: Selectors('CSS selectors of elements removed before extraction (at most 20, each at most 200 characters).'),
};

/** `query`: read the part of a page that answers a question first (src/tokens/select.ts). */
const QueryField = {
  query: Type.Optional(
    Type.String({
      minLength: 2,
      maxLength: 500,
      description:
        'What you want to learn from the page. With max_tokens, a trimmed answer holds the blocks ' +
        'that best match it (BM25 over paragraphs, list items and table rows, headings counting for ' +
        'their section) in page order, each under its heading path, with "[… N tokens left out …]" ' +
        'where text was skipped; the outline lists the sections left out, most relevant first, and ' +
        'next_cursor reads the rest of the page in order. Without max_tokens the content is unchanged. ' +
        'Same price; a cached copy is reused.',
      examples: ['how often to water'],
    }),
  ),
};

const NullableInt = (min: number, description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: min, default: null, description });

/** What a URL must start with; contract/issues.ts reports a mismatch as FastAPI's url_scheme. */
export const URL_SCHEME_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';

export const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  format: 'uri',
  pattern: URL_SCHEME_PATTERN,
  description: 'An absolute http or https URL.',
  examples: ['https://example.com/article'],
});

export const FetchRequest = Type.Object(
  {
    url: Url,
    max_tokens: NullableInt(
      1,
      'Trim the content to at most this many o200k tokens, at a block boundary where possible.',
    ),
    max_chars: NullableInt(
      1,
      'Trim the content to at most this many characters (UTF-16 code units, as JavaScript counts them) as well, ' +
        'at a block boundary where possible: for clients that limit results by length. With max_tokens, the ' +
        'smaller part wins; next_cursor reads on either way.',
    ),
    format: StringEnum(FORMATS, {
      default: 'markdown',
      description: 'markdown, text (no Markdown syntax) or json (Markdown plus typed blocks in `document`).',
    }),
    use_cache: Type.Boolean({
      default: true,
      description: 'Serve from the cache when a fresh copy exists; false forces a new fetch (and refreshes the cache).',
    }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'The `next_cursor` of a trimmed response: returns the next part of the same cached copy.',
      }),
    ),
    fetcher: StringEnum(FETCHER_CHOICES, {
      default: 'auto',
      description:
        'auto (default): the router picks html, pdf, browser (JavaScript-rendered pages) or reader ' +
        '(sites that refuse automated clients), and falls back when one fails. A fetcher name ' +
        'forces that one, without fallback; its result is cached apart from auto.',
    }),
    ...StyleFields,
    ...FreshnessAndSelectionFields,
    ...QueryField,
    ...InteractionFields,
    ...DocumentFields,
  },
  { additionalProperties: false },
);
export type FetchRequest = Static<typeof FetchRequest>;

export const BatchFetchRequest = Type.Object(
  {
    urls: Type.Array(Url, { minItems: 1, maxItems: MAX_BATCH_URLS }),
    max_tokens_each: NullableInt(1, 'Trim each result to at most this many tokens.'),
    max_chars_each: NullableInt(1, 'Trim each result to at most this many characters as well (as max_chars).'),
    use_cache: Type.Boolean({ default: true }),
    ...StyleFields,
    ...FreshnessAndSelectionFields,
    ...QueryField,
    ...InteractionFields,
    ...DocumentFields,
  },
  { additionalProperties: false },
);
export type BatchFetchRequest = Static<typeof BatchFetchRequest>;

export const UrlQuery = Type.Object({
  url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'The page URL.' }),
});
export type UrlQuery = Static<typeof UrlQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

const NullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const Metadata = Type.Object({
  title: NullableString,
  description: NullableString,
  language: NullableString,
  author: NullableText('Who wrote it: the names the page (JSON-LD, meta, byline) or the PDF gives, joined with ", ".'),
  published_at: NullableText(
    'When it was published, ISO 8601: `2024-03-05`, or `2024-03-05T10:20:30` with the offset ' +
      'the page gives (`Z`, `+01:00`) and none when it gives none.',
  ),
  site_name: NullableText("The site or publisher's name (JSON-LD publisher, og:site_name)."),
  canonical_url: NullableText('The absolute URL the page names as its canonical one (<link rel=canonical>, og:url).'),
  image: NullableText("The page's main image, absolute (JSON-LD, og:image, twitter:image)."),
  url: Type.String({ description: 'Final URL, after redirects.' }),
  status_code: Type.Integer(),
  content_type: Type.String(),
  token_count: Type.Integer({ description: 'o200k_base tokens in the returned content.' }),
  total_tokens: Type.Integer({ description: 'Tokens in the whole page content, before trimming.' }),
  truncated: Type.Boolean(),
  page_count: Type.Optional(
    Type.Integer({ description: 'PDFs: pages in the document (only the first PDF_MAX_PAGES are read).' }),
  ),
});

const Attempt = Type.Object({
  fetcher: StringEnum(FETCHERS),
  outcome: Type.String({
    description:
      'ok; app_shell, challenge or upstream_status for a GET whose answer was not the content; ' +
      'unavailable (the fetcher cannot run here); unaffordable (the caller has too few credits ' +
      'for it); or the error code.',
  }),
  ms: Type.Integer(),
  detail: Type.Optional(Type.String()),
});

const CacheInfo = Type.Object({
  hit: Type.Boolean(),
  cached_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  age_seconds: Type.Integer({ description: 'How old the copy is: seconds since it was fetched.' }),
});

/** What a copy says of its content over time (max_age) and of the selection that made it (include, exclude). */
const CopyHistoryFields = {
  content_hash: Type.String({
    description: 'SHA-256 of the whole extracted Markdown (32 hex digits): equal hashes, equal content.',
  }),
  changed: Type.Optional(
    Type.Boolean({
      description: 'Fetched now in place of an earlier cached copy: whether the content differs from it.',
    }),
  ),
  last_seen_different_at: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'With `changed`: when a copy with other content was last fetched (null: none seen).',
    }),
  ),
  selection: Type.Optional(
    Type.Object(
      {
        applied: Type.Boolean({ description: 'False when the content is not HTML (PDF, Markdown): returned whole.' }),
        included: Type.Union([Type.Integer(), Type.Null()], { description: 'Elements `include` matched.' }),
        excluded: Type.Union([Type.Integer(), Type.Null()], { description: 'Elements `exclude` removed.' }),
      },
      { description: 'With include or exclude: what the selectors matched.' },
    ),
  ),
};

const FetchInfo = Type.Object({
  fetcher_used: StringEnum(FETCHERS),
  document_type: StringEnum(DOCUMENT_TYPES, {
    description:
      'What the bytes were, by their magic bytes and Content-Type: html, pdf, docx, xlsx, ods, csv, pptx, epub, ' +
      'rss, atom, json, xml, markdown, text or image. Binary documents are read by the pdf fetcher (the document ' +
      'extractor), text formats by html.',
  }),
  attempts: Type.Optional(
    Type.Array(Attempt, { description: 'Every fetcher the router tried, in order, when it tried more than one.' }),
  ),
  ocr_pages: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Pages read by OCR (an image; PDF pages without a text layer, at most OCR_MAX_PAGES): each costs what a ' +
        'rendered page does, 5 credits.',
    }),
  ),
  fetch_ms: Type.Integer({
    description: 'Time the upstream fetch and extraction took (of the original fetch on a cache hit).',
  }),
  redirects: Type.Integer(),
  bytes: Type.Integer({ description: 'Bytes of the (decompressed) body read.' }),
  body_truncated: Type.Boolean({ description: 'The body was larger than FETCH_MAX_BYTES and was cut there.' }),
  source_markdown: Type.Boolean({ description: 'The site answered in Markdown, used as is.' }),
  ...CopyHistoryFields,
});

const OutlineEntry = Type.Object({ level: Type.Integer(), title: Type.String(), tokens: Type.Integer() });

const DocumentSchema = Type.Object(
  {
    blocks: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    links: Type.Array(Type.Object({ text: Type.String(), url: Type.String() })),
  },
  { description: 'format=json only: the returned content as typed blocks.' },
);

export const FetchResult = Type.Object({
  url: Type.String({ description: 'The URL as requested.' }),
  markdown: Type.String({ description: 'The content in the requested format.' }),
  document: Type.Optional(DocumentSchema),
  metadata: Metadata,
  outline: Type.Array(OutlineEntry, {
    description:
      'Headings of the part that was cut, with their token counts; a section cut midway comes ' +
      'first as "<heading> (continued)" (level 0 before any heading).',
  }),
  credits: Type.Number({
    description:
      "Price of this result: the fetcher's route price (html 1, reader 2, browser 5, pdf 2), or 0.1 from the cache.",
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` to read the next part; null at the end.',
  }),
  cache: CacheInfo,
  fetch_info: FetchInfo,
  screenshot_url: Type.Optional(
    Type.String({
      description:
        'With `screenshot`: the picture of the page as read, served by Fetchdown to the same caller (its key, or ' +
        'its address without one) until it expires (SCREENSHOT_TTL_SECONDS, 24 hours by default).',
    }),
  ),
  actions: Type.Optional(
    Type.Object(
      { screenshots: Type.Array(Type.String()) },
      { description: 'With screenshot actions: the URLs of their pictures, in step order (as screenshot_url).' },
    ),
  ),
});
export type FetchResult = Static<typeof FetchResult>;

const BatchError = Type.Object({
  url: Type.String(),
  error: Type.Object({
    status: Type.Integer(),
    code: Type.String(),
    detail: Type.String(),
    loc: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Integer()]), {
        description: 'For a 422: where the faulty value is, as in a validation error (`["body", "max_tokens_each"]`).',
      }),
    ),
  }),
});

export const BatchResult = Type.Object({
  results: Type.Array(Type.Union([FetchResult, BatchError]), {
    description: 'One entry per requested URL, in input order.',
  }),
});
export type BatchResult = Static<typeof BatchResult>;

export const MAX_SEARCH_RESULTS = 10;

export const SearchRequest = Type.Object(
  {
    query: Type.String({
      minLength: 2,
      maxLength: 500,
      description: 'What to search the web for.',
      examples: ['how to grow tomatoes on a balcony'],
    }),
    num_results: Type.Integer({
      minimum: 1,
      maximum: MAX_SEARCH_RESULTS,
      default: 3,
      description: 'How many of the top results to fetch.',
    }),
    max_tokens_each: Type.Integer({
      minimum: 100,
      maximum: 20000,
      default: 2000,
      description: 'Trim each result to at most this many tokens.',
    }),
    max_chars_each: NullableInt(1, 'Trim each result to at most this many characters as well (as max_chars).'),
  },
  { additionalProperties: false },
);
export type SearchRequest = Static<typeof SearchRequest>;

const SearchHitFields = {
  title: Type.String({ description: 'Title as the search provider gave it.' }),
  url: Type.String({ description: 'Result URL as the search provider gave it.' }),
  snippet: Type.String({ description: "The provider's snippet." }),
};

const SearchFetched = Type.Object({
  ...SearchHitFields,
  markdown: Type.String(),
  metadata: Metadata,
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass to POST /fetch with this url as `cursor` to read on.',
  }),
  cache: CacheInfo,
  fetch_info: FetchInfo,
});

const SearchFailed = Type.Object({ ...SearchHitFields, error: BatchError.properties.error });

export const SearchResult = Type.Object({
  query: Type.String(),
  provider: StringEnum(['searxng', 'brave'] as const),
  results: Type.Array(Type.Union([SearchFetched, SearchFailed]), {
    description: "In the provider's order; a result that could not be fetched carries `error` instead of content.",
  }),
  credits: Type.Number({
    description: 'Price of this search in credits: 15 for up to 3 results, plus 1 for each further result.',
  }),
});
export type SearchResult = Static<typeof SearchResult>;

export type EstimateResult = Static<typeof EstimateResult>;
export const EstimateResult = Type.Object({
  url: Type.String(),
  estimated_tokens: Type.Integer(),
  confident: Type.Boolean({
    description: 'False when the length of the page is unknown (no Content-Length): fetch with max_tokens instead.',
  }),
  source: StringEnum(['cache', 'head', 'range'] as const, {
    description: 'What was asked: the cached copy, a HEAD request, or a GET of at most 64 KB as sent (ranged).',
  }),
  method: StringEnum(['cache', 'whole', 'sample', 'whole_compressed', 'sample_compressed', 'length'] as const, {
    description:
      'How the number was made. cache: exact, from the cached copy. whole: the page fitted in the 64 KB ' +
      'read and was extracted and counted as a fetch would. sample: extracted from the first 64 KB (its ' +
      'text and its share of scripts and styles) and extrapolated to the full length. whole_compressed and ' +
      'sample_compressed: the same, the server having sent the page compressed (64 KB as sent decode to ' +
      'several times that, so most pages arrive whole). length: the reported length times a tokens-per-byte ' +
      'ratio (the server refused ranges, or a PDF).',
  }),
  content_type: NullableString,
  content_length: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The length of the page in bytes as the server sent it (compressed when it was), if known.',
  }),
});

export type CacheStatus = Static<typeof CacheStatus>;
export const CacheStatus = Type.Object({
  url: Type.String(),
  cached: Type.Boolean(),
  cached_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  fetcher_used: Type.Union([Type.String(), Type.Null()]),
  token_count: Type.Union([Type.Integer(), Type.Null()]),
});

export const CacheDeleted = Type.Object({ url: Type.String(), deleted: Type.Boolean() });
export type CacheDeleted = Static<typeof CacheDeleted>;

const ValidationIssue = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
});
const RequestId = Type.Optional(
  Type.String({ description: 'The X-Request-Id of the request, to quote when reporting a problem.' }),
);
export const HTTPValidationError = Type.Object(
  { detail: Type.Array(ValidationIssue), request_id: RequestId },
  { $id: 'HTTPValidationError' },
);
export const ErrorResponse = Type.Object(
  { detail: Type.String(), code: Type.String(), retry_hint: Type.Optional(Type.String()), request_id: RequestId },
  { $id: 'ErrorResponse', additionalProperties: true },
);

/**
 * A request schema as callers should read it (/openapi.json, MCP tool schemas): a field with a default may be left
 * out, so it is not listed as required. Validation fills defaults in before it checks `required`, so the stricter
 * list TypeBox derives never fires for those fields; it would only mislead clients into sending every field.
 */
export function withOptionalDefaults<T extends object>(schema: T): T {
  const { properties, required } = schema as { properties?: Record<string, { default?: unknown }>; required?: unknown };
  if (!properties || !Array.isArray(required)) return schema;
  const stillRequired = (required as string[]).filter((name) => properties[name]?.default === undefined);
  const copy = { ...schema } as Record<string | symbol, unknown>;
  if (stillRequired.length > 0) copy.required = stillRequired;
  else delete copy.required;
  return copy as T;
}
