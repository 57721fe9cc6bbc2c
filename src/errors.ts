// Every error the API can answer with: one code→status table, two classes, one renderer (HTTP, MCP and the CLI all
// show errors through it), and one mapping of a failed item (of a batch, a search) to its error entry.

export const ERROR_STATUS = {
  bad_request: 400,
  validation_error: 422,
  invalid_cursor: 422,
  blocked_url: 403,
  not_found: 404,
  unsupported_media_type: 415,
  unsupported_content: 415,
  payload_too_large: 413,
  upstream_status: 502,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  no_text_layer: 422,
  unreadable_document: 422,
  action_failed: 422,
  empty_content: 422,
  extraction_timeout: 422,
  extraction_too_large: 422,
  extraction_busy: 503,
  server_busy: 503,
  reader_failed: 502,
  blocked_by_site: 502,
  robots_disallowed: 403,
  fetcher_unavailable: 503,
  search_not_configured: 503,
  cache_unavailable: 503,
  store_unavailable: 503,
  search_failed: 502,
  invalid_api_key: 401,
  key_required: 401,
  invalid_session: 401,
  invalid_admin_token: 401,
  invalid_token: 400,
  invalid_access_token: 401,
  cross_site_request: 403,
  insufficient_scope: 403,
  quota_exceeded: 402,
  too_many_keys: 409,
  crawl_storage_full: 409,
  rate_limited: 429,
  billing_not_configured: 503,
  billing_provider_error: 502,
  no_billing_account: 404,
  subscription_exists: 409,
  invalid_signature: 400,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  retry_hint?: string;
  [extra: string]: unknown;
}

/** An error we foresaw: it carries its code, a detail a caller can act on and, where useful, a next step. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    /**
     * headers: response headers that belong to this error (WWW-Authenticate, Retry-After…); set by the HTTP layer.
     * cause: the failure behind it (a driver's error), for the log, never for the answer.
     */
    readonly options: {
      retryHint?: string;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { detail: this.detail, code: this.code, ...this.options.extra };
    if (this.options.retryHint) body.retry_hint = this.options.retryHint;
    return body;
  }
}

/** One entry of a FastAPI-shaped 422 body. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A 422 in FastAPI's shape: {detail: [{loc, msg, type}]}. */
export class ValidationError extends Error {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }

  static single(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** A field of a request as the code that reads it names it, in the contract's words: ['url'], ['include', 2]. */
export type Field = readonly [string, ...(string | number)[]];

/** Where a caller put a value (FastAPI's `loc`): ['body', 'url'], ['query', 'max_tokens'], ['body', 'urls', 3]. */
export type Location = (string | number)[];

/** Where the caller of a surface put each field: the surface knows (a JSON body, a query string, a path). */
export type Locate = (field: Field) => Location;

/** The HTTP API's locations, which the MCP tools and the CLI answer with too: fields of a JSON body, of a query. */
export const inBody: Locate = (field) => ['body', ...field];
export const inQuery: Locate = (field) => ['query', ...field];

/** Fields under the names the caller gave them, then located: a batch's `urls[3]` is the `url` of its fourth fetch. */
export function renamed(names: Readonly<Record<string, Field>>, locate: Locate): Locate {
  return ([name, ...rest]) => locate([...(names[name] ?? [name]), ...rest]);
}

export interface FieldIssue {
  field: Field;
  /** A function of the field's name where the message says it (in the caller's words: `max_tokens_each 2 …`). */
  msg: string | ((name: string) => string);
  type: string;
}

function locateIssue(issue: FieldIssue, locate: Locate): ValidationIssue {
  const loc = locate(issue.field);
  return { loc, msg: typeof issue.msg === 'string' ? issue.msg : issue.msg(String(loc.at(-1))), type: issue.type };
}

/**
 * A 422 about fields of a request, raised where they are read (the services), which name the field; the surface that
 * took the request says where it was (`at`). Unlocated, it is still a 422, at the field itself.
 */
export class FieldError extends ValidationError {
  constructor(readonly fieldIssues: readonly FieldIssue[]) {
    super(fieldIssues.map((issue) => locateIssue(issue, (field) => [...field])));
  }

  static of(field: Field, msg: FieldIssue['msg'], type: string): FieldError {
    return new FieldError([{ field, msg, type }]);
  }

  at(locate: Locate): ValidationError {
    return new ValidationError(this.fieldIssues.map((issue) => locateIssue(issue, locate)));
  }
}

/** `error` with the fields it names located by `locate` (any other error as it is). */
export function located(error: unknown, locate: Locate): unknown {
  return error instanceof FieldError ? error.at(locate) : error;
}

/** `work`, whose field errors say where the caller put the fields. */
export async function locating<T>(locate: Locate, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw located(error, locate);
  }
}

/** A failure a fetcher expected (blocked address, timeout, bad status…), returned as a value, not thrown. */
export interface FetchFailure {
  code: Extract<
    ErrorCode,
    | 'blocked_url'
    | 'upstream_status'
    | 'upstream_unreachable'
    | 'upstream_timeout'
    | 'unsupported_content'
    | 'no_text_layer'
    | 'unreadable_document'
    | 'empty_content'
    | 'reader_failed'
    | 'blocked_by_site'
    | 'robots_disallowed'
    | 'fetcher_unavailable'
    | 'extraction_timeout'
    | 'extraction_too_large'
    | 'extraction_busy'
    | 'server_busy'
    | 'action_failed'
  >;
  detail: string;
  retryable: boolean;
  upstreamStatus?: number;
  /** A next step for this failure when the code's usual one would mislead (a redirect loop is no DNS problem). */
  retryHint?: string;
  /** More fields for the error body (the router's `attempts`). */
  extra?: Record<string, unknown>;
  /** Response headers that belong to the failure (Retry-After when the server is at capacity). */
  headers?: Record<string, string>;
}

const RETRY_HINTS: Partial<Record<FetchFailure['code'], string>> = {
  upstream_timeout: 'retry later; the site was slow to answer',
  upstream_unreachable: 'check the URL; the host could not be reached',
  blocked_url: 'only public internet addresses can be fetched',
  no_text_layer: 'the PDF has no text layer and OCR found no text in it (or OCR is off on this server)',
  unreadable_document: 'the file is corrupt, truncated, encrypted or too large once unpacked; fetch a readable copy',
  empty_content: 'the page has no readable text; try fetcher "browser" if it is built by JavaScript',
  reader_failed: 'retry later, or try another fetcher',
  blocked_by_site: 'the site shows automated clients a bot challenge; no fallback could get past it',
  robots_disallowed:
    "the site's robots.txt asks automated agents not to fetch this URL; it cannot be fetched through this service",
  fetcher_unavailable: 'retry later, or use fetcher "auto"',
  extraction_timeout: 'the page is too large or too complex to extract in time; fetch a lighter URL for it',
  extraction_too_large: 'the page needs more memory to extract than the service allows; fetch a lighter URL for it',
  extraction_busy: 'retry after the number of seconds in Retry-After',
  server_busy: 'retry after the number of seconds in Retry-After; the page itself is not at fault',
};

export function failureToError(failure: FetchFailure): AppError {
  const status = failure.upstreamStatus !== undefined ? { upstream_status: failure.upstreamStatus } : undefined;
  const extra = status || failure.extra ? { ...status, ...failure.extra } : undefined;
  const retryHint =
    failure.retryHint ??
    (failure.code === 'upstream_status' ? upstreamStatusHint(failure.upstreamStatus) : RETRY_HINTS[failure.code]);
  return new AppError(failure.code, failure.detail, { retryHint, extra, headers: failure.headers });
}

function upstreamStatusHint(status: number | undefined): string | undefined {
  if (status === 403 || status === 401) return 'the site refuses automated access to this page';
  if (status === 404 || status === 410) return 'the page does not exist; check the URL';
  if (status === 429) return 'the site is rate limiting; retry later';
  if (status !== undefined && status >= 500) return 'the site is failing; retry later';
  return undefined;
}

/** Status and body for anything thrown; unforeseen errors become an opaque 500. */
export function renderError(error: unknown): { status: number; body: ErrorBody | { detail: ValidationIssue[] } } {
  if (error instanceof ValidationError) return { status: 422, body: { detail: error.issues } };
  if (error instanceof AppError) return { status: error.status, body: error.toBody() };
  return { status: 500, body: { detail: 'internal error', code: 'internal_error' } };
}

/** A failed item of a batch or a search, as its entry in the result: the status and code the single call would give. */
export interface ErrorEntry {
  status: number;
  code: string;
  detail: string;
  /** For a 422: where the faulty value is, in the caller's terms (`['body', 'max_tokens_each']`). */
  loc?: (string | number)[];
}

export function toErrorEntry(error: unknown): ErrorEntry {
  if (error instanceof ValidationError) {
    const detail = error.issues.map((i) => i.msg).join('; ');
    return { status: 422, code: 'validation_error', detail, loc: error.issues[0]?.loc ?? [] };
  }
  if (error instanceof AppError) return { status: error.status, code: error.code, detail: error.detail };
  return { status: 500, code: 'internal_error', detail: 'internal error' };
}
