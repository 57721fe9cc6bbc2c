// The cases of the route fuzz (route-fuzz.test.ts): for one route and one seeded generator, a request with its path,
// query, body, credentials and headers, made from what the app says of the route (/openapi.json, the MCP tool list)
// and from the world the test started (fixture site, stand-ins, keys, sessions, real cursors).
import { uniqueEmail, withKey } from '../helpers/accounts.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import {
  AWKWARD_NUMERALS,
  AWKWARD_STRINGS,
  encodeLoose,
  headerValue,
  nearlyValid,
  pathValue,
  randomText,
  validFor,
  wildJson,
  type FieldValues,
  type JsonSchema,
  type RawRequest,
  type Rng,
  type RouteEntry,
} from '../helpers/fuzz.js';
import { SELECTORS } from '../helpers/selectors.js';
import type { SmtpSink } from '../helpers/smtp.js';
import { signPayload, type StripeStandin } from '../helpers/stripe-standin.js';
import type { TestApp } from '../helpers/test-app.js';

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
export const READER_KEY = 'fuzz-reader-key';

export const PAGES = [
  '/article',
  '/long',
  '/metadata',
  '/markdown',
  '/links',
  '/links-long',
  '/plain.txt',
  '/rare.txt',
];
const ODD_PAGES = ['/data.json', '/image.png', '/archive.zip', '/charset/sjis', '/charset/bom', '/nolength', '/gzip'];
const FAILING_PAGES = ['/redirect/2', '/loop', '/to-javascript', '/moved-nowhere', '/status/404', '/status/500'];
const NOT_URLS = ['ftp://x/y', 'javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,hi', 'http://', '//x/'];
const CONTENT_TYPES = [
  ...['application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16'],
  ...['APPLICATION/JSON', 'application/json;;', 'application/vnd.api+json', 'text/plain', 'text/json', ''],
  ...['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', '*/*'],
];
const ACCEPTS = [
  ...['application/json', 'text/markdown', 'text/plain', 'text/html', '*/*', 'application/json, text/event-stream'],
  ...['text/event-stream', 'application/xml', '', 'application/json;q=0', 'text/*;q=0.5, application/json;q=0.4'],
];
const MCP_METHODS = ['initialize', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'ping', 'resources/list'];
const STRIPE_EVENTS = [
  ...['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'customer.subscription.created'],
  ...['customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid'],
];

export interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

/** A next_cursor and the request it came with (a cursor holds only for its URL, format and styles). */
export interface CursorSample {
  fields: Record<string, unknown>;
  cursor: string;
}

export interface Identities {
  key: string;
  revokedKey: string;
  cookie: string;
  /** The session the sign-out routes end, so the other routes keep theirs. */
  spareCookie: string;
}

/** Everything a case is made from: the servers, the identities, and what the app told about itself. */
export interface World {
  api: TestApp;
  site: FixtureSite;
  stripe: StripeStandin | null;
  smtp: SmtpSink | null;
  ids: Identities;
  operations: Map<string, Operation>;
  tools: { name: string; inputSchema: JsonSchema }[];
  cursors: CursorSample[];
  slugs: string[];
}

/** The /openapi.json entry of a route: Fastify's `:name` is `{name}` there, and `/r/*` is `/r/{url}`. */
export function operationKey(route: RouteEntry): string {
  const path = route.url === '/r/*' ? '/r/{url}' : route.url.replace(/:(\w+)/g, '{$1}');
  return `${route.method === 'HEAD' ? 'GET' : route.method} ${path}`;
}

function targetUrl(world: World, rng: Rng): string {
  const port = new URL(world.site.origin).port;
  // Only IP literals: a host name would ask a DNS server, and tests never leave the machine.
  const origin = rng.chance(0.8)
    ? world.site.origin
    : rng.pick([`HTTP://127.0.0.1:${port}`, `http://2130706433:${port}`, `http://u:p@127.0.0.1:${port}`]);
  switch (rng.int(10)) {
    case 0:
      return `${origin}/${encodeLoose(randomText(rng, 30))}`;
    case 1:
      return rng.pick([...NOT_URLS, ...AWKWARD_STRINGS, `http://127.0.0.1:1/`, `https://127.0.0.1:${port}/article`]);
    case 2:
      return origin + rng.pick([...ODD_PAGES, ...FAILING_PAGES]);
    case 3:
      return `${origin}/echo?${rng.pick(['max_tokens=5', 'cursor=x', `q=${encodeLoose(randomText(rng))}`])}#frag`;
    default:
      return origin + rng.pick(PAGES);
  }
}

/** A real cursor, or one tampered with: other numbers in it, other bytes, another page's, cut short, or made up. */
function cursorValue(world: World, rng: Rng, sample = rng.pick(world.cursors)): string {
  const real = sample.cursor;
  const parts = JSON.parse(Buffer.from(real, 'base64url').toString('utf8')) as unknown[];
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  switch (rng.int(8)) {
    case 0:
      return real;
    case 1: {
      const i = 1 + rng.int(parts.length - 1);
      parts[i] = rng.chance(0.5) ? wildJson(rng) : rng.pick([0, -1, 1, 2 ** 53 + 2, 1e9, 3.5, '12']);
      return encode(parts);
    }
    case 2:
      // Version 2: the ranges a query's part showed, as gaps; past the end, overlapping, odd.
      return encode([2, ...parts.slice(1, 7), ...Array.from({ length: rng.int(6) }, () => rng.int(100_000) - 10)]);
    case 3:
      return real.slice(0, rng.int(real.length));
    case 4: {
      const i = rng.int(real.length);
      return real.slice(0, i) + rng.pick(['A', '_', '-', '=', '.', '😀']) + real.slice(i + 1);
    }
    case 5:
      return encode(wildJson(rng));
    case 6:
      return encode([1, parts[1], parts[2], rng.int(200_000), rng.pick(['markdown', 'text', 'json'])]);
    default:
      return rng.pick(AWKWARD_STRINGS);
  }
}

/**
 * The request a cursor came from with the cursor tampered with, or kept: most tampering keeps its URL key and copy, so
 * the offsets and ranges it carries reach the code that reads them.
 */
function cursorRequest(world: World, rng: Rng): Record<string, unknown> {
  const sample = rng.pick(world.cursors);
  const maxTokens = rng.pick([40, 1, 5000, null]);
  return {
    ...sample.fields,
    ...(maxTokens !== null && { max_tokens: maxTokens }),
    cursor: cursorValue(world, rng, sample),
  };
}

function fieldValues(world: World): FieldValues {
  return (name, rng) => {
    switch (name) {
      case 'url':
      case 'urls':
        return targetUrl(world, rng);
      case 'cursor':
        return cursorValue(world, rng);
      case 'include':
      case 'exclude':
        return rng.pick(SELECTORS);
      case 'email':
        return rng.chance(0.6)
          ? uniqueEmail('fuzz')
          : rng.pick(['a@b', '"q u"@example.com', 'ü@exämple.com', `${'a'.repeat(250)}@x.io`, 'x@[127.0.0.1]']);
      case 'token':
        return rng.chance(0.5) ? 'A'.repeat(43) : randomText(rng, 60);
      default:
        return undefined;
    }
  };
}

function pathParam(world: World, name: string, rng: Rng): string {
  if (name === 'slug' && rng.chance(0.5)) return rng.pick(world.slugs);
  if (name === 'file' && rng.chance(0.5)) return rng.pick(['site.css', 'site.js', 'favicon.svg', '..%2Fapp.ts']);
  if (rng.chance(0.5)) return pathValue(rng.pick(AWKWARD_NUMERALS));
  return pathValue(rng.chance(0.5) ? rng.pick(AWKWARD_STRINGS) : randomText(rng, 20));
}

/** GET /r/: the target as written, percent-encoded whole, with a merged slash, with our parameters among its own. */
function readerPath(world: World, rng: Rng): string {
  const target = targetUrl(world, rng);
  const written = rng.pick([
    pathValue(target),
    encodeLoose(target).slice(0, 4000),
    pathValue(target.replace('//', '/')),
  ]);
  return `/r/${written}`;
}

/** A query string from the route's parameters: a third plain (the required ones, valid), the rest nearly valid. */
function queryString(world: World, params: Operation['parameters'], rng: Rng): string {
  const plain = rng.chance(1 / 3);
  const pairs: string[] = [];
  for (const param of params ?? []) {
    if (param.in !== 'query') continue;
    // A cursor seldom: one that is not the URL's own only says so (cursorRequest makes those that are).
    if (plain ? !param.required : !rng.chance(param.name === 'cursor' ? 0.1 : 0.4)) continue;
    const value =
      plain || rng.chance(0.9)
        ? validFor(param.schema, rng, fieldValues(world), param.name)
        : rng.pick([...AWKWARD_NUMERALS, ...AWKWARD_STRINGS]);
    if (value === null) continue;
    // An array is the parameter repeated, as query strings send lists.
    for (const item of Array.isArray(value) && rng.chance(0.8) ? value : [value]) {
      const written = typeof item === 'string' ? item : JSON.stringify(item);
      pairs.push(`${param.name}=${(rng.chance(0.9) ? encodeLoose(written) : pathValue(written)).slice(0, 3000)}`);
    }
    if (!plain && rng.chance(0.1)) pairs.push(`${param.name}=${encodeLoose(randomText(rng, 5))}`);
  }
  if (plain) return pairs.length > 0 ? `?${pairs.join('&')}` : '';
  if (rng.chance(0.2)) pairs.push(`${encodeLoose(randomText(rng, 6))}=${encodeLoose(randomText(rng, 6))}`);
  if (rng.chance(0.05)) pairs.push(rng.pick(['%', '%zz=1', '=', '&&', 'a[b]=1', '__proto__[x]=1', 'token']));
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** A body as sent: JSON of `value`, or that JSON broken, oversized, or something else under a content type. */
function encodeBody(value: unknown, rng: Rng): { body: Buffer | string; contentType: string } {
  const json = JSON.stringify(value) ?? 'null';
  const contentType = rng.chance(0.9) ? 'application/json' : rng.pick(CONTENT_TYPES);
  switch (rng.int(36)) {
    case 0:
      return { body: json.slice(0, rng.int(json.length)), contentType };
    case 1: {
      const i = rng.int(json.length);
      return { body: json.slice(0, i) + rng.pick([',', '}', '"', '\\', '\u0000', 'NaN']) + json.slice(i), contentType };
    }
    case 2:
      return {
        body: rng.pick(['', '\uFEFF{}', '{"a":1,}', "{'a':1}", '1e999', '"\\ud800"', '[]', 'null']),
        contentType,
      };
    case 3:
      return { body: Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), contentType };
    case 4:
      return { body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, contentType };
    case 5:
      // Past the 1 MB body limit.
      return { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 16) }), contentType };
    default:
      return { body: json, contentType };
  }
}

function mcpMessage(world: World, rng: Rng): unknown {
  const method = rng.chance(0.9) ? rng.pick(MCP_METHODS) : randomText(rng, 12);
  let params: unknown;
  if (method === 'tools/call') {
    const tool = rng.chance(0.9) ? rng.pick(world.tools) : { name: randomText(rng, 10), inputSchema: {} };
    const args =
      tool.name === 'fetch_url' && rng.chance(0.3)
        ? cursorRequest(world, rng)
        : nearlyValid(tool.inputSchema, rng, fieldValues(world));
    params = { name: tool.name, arguments: args };
  } else if (method === 'initialize') {
    params = { protocolVersion: rng.pick(['2025-06-18', '2024-11-05', '1999-01-01', 7]), capabilities: {} };
  } else params = rng.chance(0.5) ? {} : wildJson(rng);
  const message = {
    jsonrpc: rng.chance(0.95) ? '2.0' : wildJson(rng),
    id: rng.chance(0.9) ? rng.pick([1, 'a', 7]) : rng.pick([null, 2 ** 60, 1.5, {}]),
    method,
  };
  return rng.chance(0.9) ? { ...message, params } : rng.pick([[message, message], wildJson(rng)]);
}

/** A Stripe event, signed with the endpoint's secret or not: known types, customers ours or not, odd objects. */
function stripeDelivery(world: World, rng: Rng): { body: string; signature: string } {
  const customers = [...(world.stripe?.customers.keys() ?? []), 'cus_unknown'];
  const object = {
    id: `obj_${rng.int(1000)}`,
    customer: rng.chance(0.7) ? rng.pick(customers) : wildJson(rng),
    client_reference_id: rng.chance(0.5) ? null : rng.pick(['1', '2', '999', randomText(rng, 5)]),
    metadata: { item_key: rng.pick(['10k', 'starter', 'pro', 'none']), account_id: rng.pick(['1', '2', 'x']) },
    mode: rng.pick(['payment', 'subscription', 'setup']),
    payment_status: rng.pick(['paid', 'unpaid', 'no_payment_required']),
    subscription: rng.pick(['sub_1', null, { id: 'sub_2' }]),
    status: rng.pick(['active', 'canceled', 'past_due', 'incomplete']),
    items: { data: [{ price: { id: 'price_x', lookup_key: rng.pick(['starter', 'pro', 'scale', 'gold']) } }] },
  };
  const event = {
    id: `evt_fuzz_${rng.int(1_000_000)}`,
    object: 'event',
    type: rng.pick(STRIPE_EVENTS),
    created: Math.floor(Date.now() / 1000) - rng.int(100_000),
    data: { object: rng.chance(0.9) ? object : wildJson(rng) },
  };
  const body = JSON.stringify(event);
  const secret = world.stripe?.webhookSecret ?? 'whsec_none';
  const signature = rng.chance(0.6)
    ? signPayload(body, secret, Math.floor(Date.now() / 1000))
    : headerValue(rng.pick(['', 't=1,v1=00', randomText(rng, 30)]));
  return { body, signature };
}

function dashboardForm(world: World, rng: Rng): string {
  const form = new URLSearchParams();
  const values = fieldValues(world);
  for (const name of ['email', 'label', 'mode', 'item_key', 'url', 'api_key']) {
    if (!rng.chance(0.5)) continue;
    const named = values(name, rng) as string | undefined;
    form.set(name, named ?? (rng.chance(0.5) ? rng.pick(['pack', '10k', world.ids.key]) : randomText(rng)));
  }
  return rng.chance(0.9) ? form.toString() : randomText(rng, 50);
}

/** One request to `route`: path, query, body, credentials and headers, each drawn from `rng`. */
export function caseFor(world: World, route: RouteEntry, rng: Rng): RawRequest {
  const operation = world.operations.get(operationKey(route));
  const headers: Record<string, string> = {};
  let path =
    route.url === '/r/*'
      ? readerPath(world, rng)
      : route.url.replace(/:(\w+)/g, (_, name: string) => pathParam(world, name, rng));
  if (route.url === '/r/*' && rng.chance(0.25)) {
    const { url, ...fields } = cursorRequest(world, rng);
    path = `/r/${pathValue(String(url))}?${Object.entries(fields)
      .map(([name, value]) => `${name}=${encodeLoose(String(value))}`)
      .join('&')}`;
  } else path += queryString(world, operation?.parameters, rng);
  if (route.url === '/admin/metrics' && rng.chance(0.5))
    path += `${path.includes('?') ? '&' : '?'}token=${rng.chance(0.5) ? ADMIN_TOKEN : encodeLoose(randomText(rng))}`;

  // Half the cases carry the credential the route asks for, so they get past it to the route's own work.
  const security = JSON.stringify(operation?.security ?? []);
  const cookieRoute = route.url.startsWith('/dashboard') || (security.includes('Session') && !security.includes('Key'));
  const preferred = route.url.startsWith('/admin') ? 7 : cookieRoute ? 3 : 1;
  const credential = rng.chance(0.5) ? preferred : rng.int(8);
  if (credential === 1 || credential === 2) Object.assign(headers, withKey(world.ids.key));
  const signsOut = route.url === '/auth/logout' || route.url === '/dashboard/sign-out';
  if (credential === 2 || credential === 3) headers.cookie = signsOut ? world.ids.spareCookie : world.ids.cookie;
  if (credential === 4) Object.assign(headers, withKey(world.ids.revokedKey));
  if (credential === 5) headers['x-service-key'] = headerValue(rng.pick([...AWKWARD_STRINGS.slice(0, 40), 'fd_live_']));
  // POST /mcp also takes a bearer token: an OAuth access token, or an API key.
  if (credential === 5 && rng.chance(0.5))
    headers.authorization = `Bearer ${headerValue(rng.pick([...AWKWARD_STRINGS.slice(0, 40), 'fd_oat_', 'fd_live_']))}`;
  if (credential === 6) headers.cookie = headerValue(`service_session=${randomText(rng, 50)}; a=b; =;`);
  if (credential === 7 && route.url.startsWith('/admin')) headers['x-admin-token'] = ADMIN_TOKEN;

  headers.accept = headerValue(rng.chance(0.9) ? rng.pick(ACCEPTS) : randomText(rng, 20));
  if (rng.chance(0.15)) headers['x-request-id'] = headerValue(randomText(rng, 140));
  if (rng.chance(0.1)) headers.origin = rng.pick(['http://evil.example', 'null', 'http://localhost:8080']);
  if (rng.chance(0.05)) headers['sec-fetch-site'] = rng.pick(['cross-site', 'same-origin', 'none', '']);
  if (rng.chance(0.05)) headers['x-forwarded-for'] = headerValue(rng.pick(['1.2.3.4, 5.6.7.8', '::1', 'nonsense']));

  let body: Buffer | string | undefined;
  if (route.method === 'POST' || route.method === 'DELETE') {
    if (route.url === '/mcp') {
      if (rng.chance(0.9)) headers.accept = 'application/json, text/event-stream';
      ({ body, contentType: headers['content-type'] } = encodeBody(mcpMessage(world, rng), rng));
    } else if (route.url === '/billing/webhook') {
      const delivery = stripeDelivery(world, rng);
      body = delivery.body;
      headers['stripe-signature'] = delivery.signature;
      headers['content-type'] = 'application/json';
    } else if (route.url.startsWith('/dashboard/')) {
      body = dashboardForm(world, rng);
      headers['content-type'] = rng.chance(0.9) ? 'application/x-www-form-urlencoded' : rng.pick(CONTENT_TYPES);
    } else {
      const schema = operation?.requestBody?.content['application/json']?.schema;
      const value =
        route.url === '/fetch' && rng.chance(0.25)
          ? cursorRequest(world, rng)
          : schema && rng.chance(0.85)
            ? nearlyValid(schema, rng, fieldValues(world))
            : wildJson(rng);
      if (schema || rng.chance(0.3)) ({ body, contentType: headers['content-type'] } = encodeBody(value, rng));
    }
  }
  // Within the 16 KB Node reads of a request's head: past it, Node answers 431 itself, before any route.
  return { method: route.method, path: path.slice(0, 6000), headers, body };
}
