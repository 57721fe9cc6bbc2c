// GET /r/<url>: a page one URL away, as `curl host/r/https://…` reads it: the target URL is the rest of the path,
// its query string included, and the answer is the Markdown itself with its numbers in headers. The same operation,
// meter and cache as POST /fetch; `Accept: application/json` gets POST /fetch's JSON.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  FetchRequest,
  FetchResult,
  HTTPValidationError,
  MAX_URL_LENGTH,
  withOptionalDefaults,
} from '../../contract/fetch.js';
import { ValidationError, inBody, inQuery, type Locate } from '../../errors.js';
import { validateInput } from '../../contract/validate.js';
import { acceptsMedia } from '../accept.js';
import type { AppDeps } from '../app-deps.js';
import { sendFetchResult } from './fetch.js';

/** Our query parameters: POST /fetch's fields (but url). Every other parameter belongs to the target URL. */
export const READER_PARAMS: ReadonlySet<string> = new Set(
  Object.keys(FetchRequest.properties).filter((name) => name !== 'url'),
);

const { url: _url, actions, screenshot, headers: _headers, cookies: _cookies, ...fields } = FetchRequest.properties;
/** Fields whose values are JSON in a query string (`actions=[{"type":"click",…}]`, `screenshot=true`). */
const JsonFields = Type.Object({ actions, screenshot });
const JSON_FIELDS = ['actions', 'screenshot'] as const;
/**
 * Validated and coerced as query strings are; parameters of the target URL pass through unchecked. The caller's
 * headers and cookies are never taken from a URL, which proxies and logs keep: POST /fetch takes them.
 */
const ReaderQuery = withOptionalDefaults(
  Type.Object(
    {
      ...fields,
      ...Object.fromEntries(
        JSON_FIELDS.map((name) => [name, Type.Optional(Type.String({ description: `${name}, as JSON` }))]),
      ),
    },
    { additionalProperties: true },
  ),
);

/** The query's own fields as POST /fetch takes them, the JSON ones parsed. */
function readerInput(query: Record<string, unknown>): Record<string, unknown> {
  for (const name of ['headers', 'cookies'])
    if (name in query)
      throw ValidationError.single(
        inQuery([name]),
        `${name} are not taken in a URL, which proxies and logs keep: send them in the body of POST /fetch`,
        'value_error',
      );
  const input = Object.fromEntries(Object.entries(query).filter(([name]) => READER_PARAMS.has(name)));
  const parsed: Record<string, unknown> = {};
  for (const name of JSON_FIELDS) {
    if (typeof input[name] !== 'string') continue;
    try {
      parsed[name] = JSON.parse(input[name]);
    } catch {
      throw ValidationError.single(inQuery([name]), 'Invalid JSON', 'json_invalid');
    }
  }
  if (parsed.screenshot === true) parsed.screenshot = {};
  if (parsed.screenshot === false) delete parsed.screenshot;
  return { ...input, ...validateInput<Record<string, unknown>>(JsonFields, parsed, 'querystring') };
}

export const READER_ROUTE = '/r/*';
const TARGET_DESCRIPTION = 'The target URL, http or https, as written (query string included).';
/** For /openapi.json: the wildcard as the one parameter it is. */
export const READER_PATH_PARAMS = Type.Object({ url: Type.String({ description: TARGET_DESCRIPTION }) });

const PATH_LOC = ['path', 'url'];
/**
 * The target URL is the path; every other field is a query parameter. A cursor's errors are answered at body.cursor
 * (as they have been since GET /r/ took cursors), the location POST /fetch gives them.
 */
const locateField: Locate = (field) =>
  field[0] === 'url' ? PATH_LOC : field[0] === 'cursor' ? inBody(field) : inQuery(field);

function paramName(pair: string): string {
  const name = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * The target URL of a request path `/r/<target>`, read from the raw request line so nothing in it is decoded or
 * normalised: our parameters (READER_PARAMS) are taken out of its query string, the rest stays in order as sent. A
 * target given percent-encoded whole (`/r/https%3A%2F%2F…`) keeps its own query, and the outer query is all ours.
 */
export function readerTarget(rawUrl: string): string {
  const rest = rawUrl.slice(rawUrl.indexOf('/r/') + 3);
  const mark = rest.indexOf('?');
  let path = mark === -1 ? rest : rest.slice(0, mark);
  if (/^https?%3a/i.test(path)) {
    try {
      return decodeURIComponent(path);
    } catch {
      throw ValidationError.single(PATH_LOC, 'Input should be a valid URL', 'url_parsing');
    }
  }
  // A proxy that merges slashes (nginx's merge_slashes) turns https:// into https:/.
  path = path.replace(/^(https?:)\/(?!\/)/i, '$1//');
  const kept =
    mark === -1
      ? []
      : rest
          .slice(mark + 1)
          .split('&')
          .filter((pair) => pair && !READER_PARAMS.has(paramName(pair)));
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

function checkTarget(target: string): void {
  if (target === '') throw ValidationError.single(PATH_LOC, 'Field required', 'missing');
  if (target.length > MAX_URL_LENGTH)
    throw ValidationError.single(
      PATH_LOC,
      `String should have at most ${MAX_URL_LENGTH} characters`,
      'string_too_long',
    );
  // The scheme and the rest are checked where every fetch checks them (parseTargetUrl), with this location.
}

export const readerRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    READER_ROUTE,
    {
      config: { plainTextErrors: true },
      schema: {
        summary: 'A page as Markdown at a URL of its own: GET /r/https://example.com/page',
        description:
          'The target URL is the rest of the path, its query string included. Query parameters named like a ' +
          `POST /fetch field (${[...READER_PARAMS].join(', ')}) are ours and taken out of it; to send the ` +
          'target a parameter of one of those names, percent-encode the whole target URL in the path. Answers ' +
          'text/markdown (text/plain for format=text) with X-Token-Count, X-Fetcher, X-Document-Type, X-Cache, ' +
          'X-Credits, when trimmed X-Next-Cursor, with screenshots X-Screenshot-Url and X-Action-Screenshots ' +
          '(space-separated, in step order); Accept: application/json (or format=json) answers POST /fetch JSON. ' +
          'Errors are JSON, or text/plain for callers that accept text/* and not JSON. Billed as POST /fetch.',
        tags: ['fetching'],
        params: Type.Object({ '*': Type.String({ description: TARGET_DESCRIPTION }) }),
        querystring: ReaderQuery,
        response: {
          200: {
            description: 'The page: its Markdown (or text), or POST /fetch JSON',
            content: {
              'text/markdown': { schema: Type.String() },
              'text/plain': { schema: Type.String() },
              'application/json': { schema: FetchResult },
            },
          },
          422: Type.Union([Type.Ref(HTTPValidationError), Type.Ref(ErrorResponse)]),
          ...Object.fromEntries([403, 413, 415, 502, 503, 504].map((status) => [status, Type.Ref(ErrorResponse)])),
        },
      },
    },
    async (request, reply) => {
      const target = readerTarget(request.raw.url ?? request.url);
      checkTarget(target);
      const body = { ...readerInput(request.query), url: target } as FetchRequest;
      const result = await deps.operations.fetchUrl(request.caller, body, locateField);
      const accept = request.headers.accept;
      if (
        body.format === 'json' ||
        (acceptsMedia(accept, 'application/json') && !acceptsMedia(accept, 'text/markdown'))
      )
        return sendFetchResult(reply, result);
      void reply.headers({
        'X-Token-Count': String(result.metadata.token_count),
        'X-Fetcher': result.fetch_info.fetcher_used,
        'X-Document-Type': result.fetch_info.document_type,
        'X-Cache': result.cache.hit ? 'HIT' : 'MISS',
        'X-Credits': String(result.credits),
        ...(result.next_cursor !== null && { 'X-Next-Cursor': result.next_cursor }),
        // The Markdown has no place for them: the pictures' URLs, as the JSON answer would give them.
        ...(result.screenshot_url && { 'X-Screenshot-Url': result.screenshot_url }),
        ...(result.actions?.screenshots.length && { 'X-Action-Screenshots': result.actions.screenshots.join(' ') }),
      });
      void reply.type(body.format === 'text' ? 'text/plain; charset=utf-8' : 'text/markdown; charset=utf-8');
      return result.markdown;
    },
  );
};
