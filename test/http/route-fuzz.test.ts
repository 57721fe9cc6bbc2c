// Issue 31: every route in the app's route table, fuzzed with a fixed seed and a fixed number of cases: bodies made
// from each route's schema and then broken (wrong types, edges, unknown fields), malformed and oversized JSON, other
// content types, Unicode, every selector form, tampered cursors, awkward paths, query strings and headers, sent
// anonymously, with a key, with a session cookie and with garbage credentials. No answer may be a 500, a 503 only
// with a code that says what this server lacks, and every error is in a documented shape with the status of its code.
// A failure prints the case (seed and number) so it can be replayed; the cases are made in route-fuzz.cases.ts.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { signIn, signUp, withKey } from '../helpers/accounts.js';
import { stripeEnv } from '../helpers/billing.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { errorShapeProblem } from '../helpers/error-shapes.js';
import { startReaderStandIn } from '../helpers/fixture-fetchers.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import {
  createRawClient,
  createRng,
  routeTable,
  type RawAnswer,
  type RawRequest,
  type RouteEntry,
} from '../helpers/fuzz.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin.js';
import { buildTestApp } from '../helpers/test-app.js';
import { acceptsMedia } from '../../src/http/accept.js';
import {
  ADMIN_TOKEN,
  PAGES,
  READER_KEY,
  caseFor,
  operationKey,
  type Operation,
  type World,
} from './route-fuzz.cases.js';

const SEED = 31;
/** Cases for the app with everything configured, and for one with no search, billing, mail or admin token. */
const CASES = 600;
const BARE_CASES = 150;
const PARALLEL = 8;

/**
 * 503s that say what a server lacks: each the documented answer of its route when that part is not configured (a
 * search provider, Stripe, a reader provider for `fetcher: "reader"`).
 */
const BARE_503_CODES = ['search_not_configured', 'billing_not_configured', 'fetcher_unavailable'];

/** Routes that may answer errors as a page or as text: the pages, the sign-in link, and GET /r/ for text clients. */
function mayAnswerText(world: World, route: RouteEntry, request: RawRequest): boolean {
  const tags = world.operations.get(operationKey(route))?.tags ?? [];
  const page = route.url.startsWith('/dashboard') || route.url.startsWith('/static/') || route.url === '/oauth/consent';
  if (tags.includes('pages') || page) return true;
  if (route.url !== '/r/*' && route.url !== '/auth/verify') return false;
  return request.headers.accept !== 'application/json';
}

/**
 * The MCP SDK answers params that fail its own schema of a method (tools/call whose `arguments` is not an object,
 * initialize without clientInfo) with -32603 and the Zod issues as the message, before any handler of ours runs:
 * modelcontextprotocol/typescript-sdk#2284 (open; -32602 is meant). Any other -32603 is ours.
 */
function isSdkParamsRejection(message: unknown): boolean {
  try {
    const issues = JSON.parse(String(message));
    return Array.isArray(issues) && issues.length > 0 && issues.every((issue) => Array.isArray(issue?.path));
  } catch {
    return false;
  }
}

/** Why this answer is not acceptable, or null when it is. */
function problemWith(world: World, route: RouteEntry, request: RawRequest, res: RawAnswer, allowed503: string[]) {
  const { status, body, text } = res;
  // GET /r/ tells text clients its errors as text: "503 fetcher_unavailable: …".
  const code = body?.code ?? /^\d{3} (\w+)/.exec(text)?.[1];
  // 502 and 504 are the site's (or a provider's) failures, with their codes; a 503 only says what this server lacks.
  if (status === 500 || (status === 503 && !allowed503.includes(code))) return `status ${status}`;
  // A failure inside a 200: a batch or search entry, an MCP tool result.
  if (text.includes('"internal_error"')) return 'an internal error inside the answer';
  if (route.url === '/mcp') {
    const messages: any[] = Array.isArray(body) ? body : [body];
    if (messages.some((rpc) => rpc?.error?.code === -32603 && !isSdkParamsRejection(rpc.error.message)))
      return 'a JSON-RPC internal error';
    if (status >= 400 && messages[0]?.jsonrpc === '2.0' && typeof messages[0].error?.code === 'number') return null;
  }
  if (status < 400 || request.method === 'HEAD') return null;
  const type = String(res.headers['content-type'] ?? '');
  if (body === undefined) {
    if (!mayAnswerText(world, route, request)) return `a ${status} that is not JSON`;
    return acceptsMedia(type, 'text/html') || acceptsMedia(type, 'text/plain') ? null : `a ${status} as ${type}`;
  }
  return errorShapeProblem(status, body);
}

/** Fixture site, stand-ins, app and identities; `configured` false leaves search, billing, mail and admin unset. */
async function startWorld(t: TestContext, configured: boolean, database: Record<string, string> = {}): Promise<World> {
  const site = await startFixtureSite();
  t.after(() => site.close());
  let stripe: StripeStandin | null = null;
  let smtp: SmtpSink | null = null;
  let env: Record<string, string> = {
    // Never r.jina.ai: a stand-in when configured; unconfigured (no key), the reader is not tried.
    READER_BASE_URL: 'http://127.0.0.1:1/',
    ANONYMOUS_MONTHLY_REQUESTS: '0',
    FREE_MONTHLY_CREDITS: '100000000',
    RATE_LIMIT_FREE: '0',
    // Unconfigured, pages are extracted on the main thread (no pool): that path answers too, and starts faster.
    ...(!configured && { EXTRACT_WORKERS: '0' }),
  };
  if (configured) {
    stripe = await startStripeStandin();
    stripe.seedPlanPrices();
    smtp = await startSmtpServer();
    const hits = PAGES.slice(0, 4).map((path, i) => ({ title: `R${i}`, url: site.url(path), snippet: 'a hit' }));
    const searxng = await startSearxngStandin(hits);
    const reader = await startReaderStandIn(READER_KEY);
    t.after(() => Promise.all([stripe!.close(), smtp!.close(), searxng.close(), reader.close()]));
    env = { ...env, ...stripeEnv(stripe), SMTP_URL: smtp.url, ADMIN_TOKEN };
    env = { ...env, SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: searxng.origin };
    env = { ...env, READER_BASE_URL: reader.baseUrl, READER_API_KEY: READER_KEY };
  }
  const api = await buildTestApp(t, { ...env, ...database });
  const world: World = {
    api,
    site,
    stripe,
    smtp,
    ids: { key: '', revokedKey: '', cookie: '', spareCookie: '' },
    operations: new Map(),
    tools: [],
    cursors: [],
    slugs: [],
  };
  const spec = (await api.get('/openapi.json')).body;
  for (const [path, methods] of Object.entries<Record<string, Operation>>(spec.paths))
    for (const [method, operation] of Object.entries(methods))
      world.operations.set(`${method.toUpperCase()} ${path}`, operation);
  await refreshIdentities(world, true);
  const mcp = await api.request(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { accept: 'application/json, text/event-stream', ...withKey(world.ids.key) },
  );
  world.tools = mcp.body.result.tools;
  for (const fields of [
    { url: site.url('/long') },
    { url: site.url('/long'), format: 'text', links: 'none' },
    { url: site.url('/long'), format: 'json', images: 'none' },
    { url: site.url('/long'), query: 'watering schedule' },
    { url: site.url('/links-long'), links: 'reference' },
    { url: site.url('/long'), include: ['article'], exclude: ['h2'] },
  ]) {
    const part = await api.post('/fetch', { ...fields, max_tokens: 40 });
    assert.equal(typeof part.body.next_cursor, 'string', part.text);
    world.cursors.push({ fields, cursor: part.body.next_cursor });
  }
  world.slugs = [...new Set((await api.get('/examples')).text.match(/(?<=\/examples\/)[a-z0-9-]+/g) ?? [])];
  return world;
}

/** A live key and session (the fuzz revokes keys and signs out), and a revoked key. */
async function refreshIdentities(world: World, all: boolean): Promise<void> {
  const { api, smtp, ids } = world;
  if (all || (await api.request('GET', '/account/me', undefined, withKey(ids.key))).status === 401)
    ids.key = (await signUp(api)).apiKey;
  if (all) {
    const other = await signUp(api);
    const revoke = await api.request('DELETE', `/account/keys/${other.keyId}`, undefined, withKey(other.apiKey));
    assert.equal(revoke.status, 200, revoke.text);
    ids.revokedKey = other.apiKey;
  }
  if (!smtp) return;
  for (const which of ['cookie', 'spareCookie'] as const) {
    if (all || (await api.request('GET', '/auth/keys', undefined, { cookie: ids[which] })).status === 401)
      ids[which] = (await signIn(api, smtp, (await signUp(api)).email)).cookie;
  }
}

async function fuzz(t: TestContext, world: World, cases: number, seed: number, allowed503: string[]) {
  const routes = routeTable(world.api.app);
  // Routes that take input get more of the cases than those that take none (a page, /health), the busiest the most;
  // round by round, so the first routes.length cases ask every route once.
  const weightOf = (route: RouteEntry) => {
    const operation = world.operations.get(operationKey(route));
    const takesInput =
      operation?.requestBody || operation?.parameters || route.method === 'POST' || route.url.includes(':');
    return ['/fetch', '/r/*', '/mcp'].includes(route.url) ? 16 : takesInput ? 6 : 1;
  };
  const schedule = Array.from({ length: 16 }, (_, round) => routes.filter((route) => weightOf(route) > round)).flat();
  // The route table is read from Fastify's tree: every documented operation must be in it, or the reading is wrong.
  const listed = new Set(routes.map(operationKey));
  assert.deepEqual(
    [...world.operations.keys()].filter((key) => !listed.has(key)),
    [],
  );
  const client = createRawClient(world.api.base);
  t.after(() => client.close());
  const failures: string[] = [];
  const statuses = new Map<string, Map<number, number>>();
  async function runCase(n: number): Promise<void> {
    // Each case has a generator of its own, so case n is the same whatever ran before it.
    const rng = createRng(seed * 1_000_003 + n);
    const route = schedule[n % schedule.length]!;
    const request = caseFor(world, route, rng);
    let res = await client.send(request).catch((error: Error) => error);
    // A HEAD answer has no body to read the code from: the GET beside it tells.
    if (!(res instanceof Error) && route.method === 'HEAD' && res.status >= 500)
      res = await client.send({ ...request, method: 'GET' }).catch((error: Error) => error);
    const shown = () => JSON.stringify({ ...request, body: String(request.body ?? '').slice(0, 300) });
    if (res instanceof Error) {
      failures.push(`case ${n} (seed ${seed}): no answer (${res.message}): ${shown()}`);
      return;
    }
    const tally = statuses.get(`${route.method} ${route.url}`) ?? new Map<number, number>();
    tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
    statuses.set(`${route.method} ${route.url}`, tally);
    const problem = problemWith(world, route, request, res, allowed503);
    if (problem) failures.push(`case ${n} (seed ${seed}): ${problem}: ${shown()} → ${res.text.slice(0, 300)}`);
  }
  // PARALLEL workers take the next case as soon as theirs is answered; every 25th case, the keys and the session the
  // fuzz revoked or signed out are replaced first.
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < cases; n = next++) {
      if (n % 25 === 0) await refreshIdentities(world, false);
      await runCase(n);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  for (const [route, tally] of statuses) t.diagnostic(`${route}: ${JSON.stringify(Object.fromEntries(tally))}`);
  assert.deepEqual(failures, []);
  assert.equal(statuses.size, routes.length, `${cases} cases reach every one of the ${routes.length} routes`);
  return { routes, statuses };
}

for (const backend of DATABASES) {
  test(`every route on ${backend.name}, ${CASES} cases with search, billing, mail and an admin token: never a 500`, async (t) => {
    const database = await databaseEnv(t, backend);
    if (!database) return;
    const world = await startWorld(t, true, database);
    const { routes, statuses } = await fuzz(t, world, CASES, SEED, []);
    assert.ok(routes.length >= 50, `${routes.length} routes in the table`);
    // The cases reached the routes' work, not only their refusals.
    for (const route of [
      'POST /fetch',
      'GET /r/*',
      'POST /mcp',
      'POST /account/keys',
      'POST /auth/keys',
      'POST /search',
    ])
      assert.ok(statuses.get(route)?.get(200), `${route}: ${JSON.stringify([...(statuses.get(route) ?? [])])}`);
    assert.ok(statuses.get('POST /fetch')?.get(422), 'POST /fetch: some cases were refused');
  });
}

test(`every route, ${BARE_CASES} cases with nothing optional configured: 503 only where a part is missing`, async (t) => {
  const world = await startWorld(t, false);
  await fuzz(t, world, BARE_CASES, SEED + 1, BARE_503_CODES);
  // The documented 503s, each for a request that is otherwise right.
  const key = withKey(world.ids.key);
  for (const [method, path, body, code] of [
    ['POST', '/search', { query: 'tomatoes' }, 'search_not_configured'],
    ['POST', '/billing/checkout', { mode: 'pack', item_key: '10k' }, 'billing_not_configured'],
    ['POST', '/fetch', { url: world.site.url('/article'), fetcher: 'reader' }, 'fetcher_unavailable'],
  ] as const) {
    const res = await world.api.request(method, path, body, key);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, code);
    assert.equal(errorShapeProblem(503, res.body), null);
  }
});
