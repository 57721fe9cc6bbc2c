// Seeded fuzzing for the HTTP tests: a small PRNG (one seed, the same cases every run), values of every awkward kind,
// inputs made from a route's JSON Schema that are nearly valid, requests sent byte for byte (node:http: no client
// normalises the path or the headers) and the route table of the app, so a route added to the app is fuzzed too.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: 32 bits of state, enough to spread cases evenly; not for anything secret. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p };
}

/** Strings that have broken parsers, validators, databases and renderers before. */
export const AWKWARD_STRINGS: readonly string[] = [
  ...['', ' ', '\t\n', '0', '-1', 'null', 'true', 'undefined', 'NaN', '[]', '{}', '__proto__', 'constructor'],
  ...['toString', 'hasOwnProperty', '<script>alert(1)</script>', "'; drop table accounts; --", '" OR 1=1 --'],
  ...['%00', '%', '%zz', '%C0%AF', '%%32%65', '../../etc/passwd', '\\', '\u0000', 'a\u0000b', '\u2028\u2029'],
  ...['\uFEFF', '\uD800', '\uDFFF', 'café', 'Straße', '日本語', '𪛔', '😀👍🏽👨‍👩‍👧', '\u202Eevil', 'e\u0301', 'ﷺ', 'İı'],
  ...['\u00A0', '\r\n\r\n', '${x}', '{{x}}', '%s%n', 'fd_live_', `fd_live_${'A'.repeat(43)}`, '😀'.repeat(64)],
  ...['x'.repeat(257), 'y'.repeat(65), 'z'.repeat(2100), 'w'.repeat(100_000)],
];

/** Numbers at the edges of integer types, of JSON and of floating point. */
export const AWKWARD_NUMBERS: readonly number[] = [
  ...[0, -0, 1, -1, 0.5, -0.5, 1e-7, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, 2 ** 63, 1e21],
  ...[1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE],
];

/** Numbers as a query string or a path writes them, valid and not. */
export const AWKWARD_NUMERALS: readonly string[] = [
  ...['0', '1', '2', '3', '-1', '1.5', '1e3', '0x10', '010', '+1', ' 1', '1 ', 'Infinity', 'NaN', '١', '１'],
  ...['2147483647', '2147483648', '9007199254740993', '9223372036854775808', '99999999999999999999999'],
];

const CODE_POINT_RANGES: readonly (readonly [number, number])[] = [
  [0x20, 0x7e],
  [0x00, 0x1f],
  [0x80, 0xff],
  [0x370, 0x3ff],
  [0x4e00, 0x4fff],
  [0x1f600, 0x1f64f],
  [0x300, 0x36f],
  [0x200b, 0x202e],
  [0xd800, 0xdfff],
  [0xfff0, 0xffff],
  [0x10000, 0x10ffff],
];

/** Up to maxLength code points, mostly from one range of Unicode (lone surrogates and controls among them). */
export function randomText(rng: Rng, maxLength = 40): string {
  const home = rng.pick(CODE_POINT_RANGES);
  let text = '';
  for (let i = rng.int(maxLength + 1); i > 0; i--) {
    const [low, high] = rng.chance(0.7) ? home : rng.pick(CODE_POINT_RANGES);
    text += String.fromCodePoint(low + rng.int(high - low + 1));
  }
  return text;
}

/** Any JSON value: scalars of every awkward kind, arrays and objects (with keys such as __proto__). */
export function wildJson(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 5 : 7)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.chance(0.5) ? rng.pick(AWKWARD_NUMBERS) : rng.int(1000);
    case 3:
      return rng.pick(AWKWARD_STRINGS);
    case 4:
      return randomText(rng);
    case 5:
      return Array.from({ length: rng.int(4) }, () => wildJson(rng, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(4) }, () => [
          rng.chance(0.5) ? rng.pick(AWKWARD_STRINGS) : randomText(rng, 8),
          wildJson(rng, depth + 1),
        ]),
      );
  }
}

/** The parts of JSON Schema that our routes' schemas (from /openapi.json, MCP's inputSchema) use. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
}

/** Values for fields by name (a URL for `url`, a cursor for `cursor`…), or undefined for the schema's own. */
export type FieldValues = (name: string, rng: Rng) => unknown;

const typeOf = (schema: JsonSchema, rng: Rng) => (Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type);

/**
 * A value the schema accepts, with `named` supplying the scalars of named fields (and their array items); each
 * optional field is there with the chance `optional`.
 */
export function validFor(schema: JsonSchema, rng: Rng, named: FieldValues, name = '', optional = 0.25): unknown {
  const type = typeOf(schema, rng);
  if (type !== 'object' && type !== 'array') {
    const own = named(name, rng);
    if (own !== undefined) return own;
  }
  if (schema.enum) return rng.pick(schema.enum);
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {}))
        if (schema.required?.includes(key) || rng.chance(optional)) value[key] = validFor(sub, rng, named, key);
      return value;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? min + 3, min + 3);
      return Array.from({ length: min + rng.int(max - min + 1) }, () => validFor(schema.items ?? {}, rng, named, name));
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 5000, min + 5000);
      return min + rng.int(max - min + 1);
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'string': {
      const text = randomText(rng, Math.min(schema.maxLength ?? 30, 30));
      return text.padEnd(schema.minLength ?? 0, 'a');
    }
    default:
      return wildJson(rng);
  }
}

/** A value just past the schema's edges, or of another type. */
export function wrongFor(schema: JsonSchema, rng: Rng, named: FieldValues, name = ''): unknown {
  const choices: (() => unknown)[] = [() => wildJson(rng), () => [validFor(schema, rng, named, name)]];
  const { minimum, maximum, minLength, maxLength, minItems, maxItems } = schema;
  if (maxLength !== undefined)
    choices.push(
      () => 'x'.repeat(maxLength + 1),
      () => '😀'.repeat(maxLength),
    );
  if (minLength) choices.push(() => 'x'.repeat(minLength - 1));
  if (minimum !== undefined)
    choices.push(
      () => minimum - 1,
      () => minimum + 0.5,
    );
  if (maximum !== undefined) choices.push(() => maximum + 1);
  if (typeOf(schema, rng) === 'integer')
    choices.push(
      () => rng.pick(AWKWARD_NUMBERS),
      () => rng.pick(AWKWARD_NUMERALS),
    );
  if (maxItems !== undefined)
    choices.push(() => Array.from({ length: maxItems + 1 }, () => validFor(schema.items ?? {}, rng, named, name)));
  if (minItems) choices.push(() => []);
  if (schema.enum) {
    const member = String(rng.pick(schema.enum));
    choices.push(
      () => member.toUpperCase(),
      () => `${member} `,
    );
  }
  return rng.pick(choices)();
}

/**
 * An object the schema nearly accepts: a valid one with up to three fields changed, dropped, added or made wrong; a
 * third are plain (the required fields only, valid), the requests most callers send, which reach the most code.
 */
export function nearlyValid(schema: JsonSchema, rng: Rng, named: FieldValues): unknown {
  if (rng.chance(1 / 3)) return validFor(schema, rng, named, '', 0);
  const value = validFor(schema, rng, named);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(schema.properties ?? {});
  // Half are left valid, so the cases reach the work behind validation as often as validation itself.
  for (let i = rng.chance(0.5) ? 0 : 1 + rng.int(3); i > 0 && keys.length > 0; i--) {
    const key = rng.pick(keys);
    const sub = schema.properties![key]!;
    switch (rng.int(4)) {
      case 0:
        fields[key] = wrongFor(sub, rng, named, key);
        break;
      case 1:
        delete fields[key];
        break;
      case 2:
        fields[rng.chance(0.5) ? rng.pick(AWKWARD_STRINGS) : `${key}_`] = wildJson(rng);
        break;
      default:
        fields[key] = validFor(sub, rng, named, key);
    }
  }
  return fields;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 of any string, lone surrogates too (as U+FFFD), where encodeURIComponent throws. */
export function encodeLoose(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A header value Node will send: the UTF-8 bytes as Latin-1 characters, without CR, LF and other controls. */
export function headerValue(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

/**
 * Text for a request line as HTTP/1.1 allows it: what is not printable ASCII percent-encoded, and at most 4,000
 * characters, so Node's parser (16 KB of head, ASCII request targets) lets it through to the app.
 */
export function pathValue(text: string): string {
  return text.replace(/[^\x21-\x7e]+/gu, (run) => encodeLoose(run)).slice(0, 4000);
}

export interface RawRequest {
  method: string;
  /** Sent as it is: already encoded as the test means it to arrive. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON, or undefined when the answer is not JSON. */
  body: any;
}

/** Sends requests to `base` as written, over a few kept-alive connections; `close` ends them. */
export function createRawClient(base: string, timeoutMs = 30_000) {
  const { hostname, port } = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  function send(request: RawRequest): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      // Content-Length always: Node frames the body of a DELETE or a HEAD with neither it nor chunked encoding.
      const headers =
        request.body === undefined
          ? request.headers
          : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
      const req = httpRequest(
        { host: hostname, port, agent, method: request.method, path: request.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  }
  return { send, close: () => agent.destroy() };
}

export interface RouteEntry {
  method: string;
  /** Fastify's pattern: `/account/keys/:key_id`, `/r/*`. */
  url: string;
}

/**
 * Every method and path the app serves, read from Fastify's route tree (printRoutes: one node a line, each holding
 * the part of the path after its parent's, with the methods of a route in brackets).
 */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  const parts: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const node = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!node) continue;
    parts.length = node[1]!.length / 4;
    parts.push(node[2]!);
    for (const method of node[3]?.split(', ') ?? []) routes.push({ method, url: parts.join('') });
  }
  return routes;
}
