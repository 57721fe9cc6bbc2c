// The caller's cookies and headers (issue 34) over HTTP, in Debian's Chromium and the html fetcher against the
// loopback interaction site with the guard on: they open a page that answers 401 without them; they reach the
// requested origin alone (never another after a redirect, never another's subresources, never the reader provider);
// what was fetched with them is never where a caller without them reads; and they never reach the request log.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { withKey } from '../helpers/accounts.js';
import {
  assertBrowserAnswer,
  assertError,
  startInteractionWorld,
  type Answer,
  type InteractionWorld,
} from '../helpers/interaction-app.js';
import { BEARER_TOKEN, SESSION_COOKIE, startInteractionSite, type Received } from '../helpers/interaction-site.js';
import { startReaderStandIn } from '../helpers/fixture-fetchers.js';
import { startServerProcess } from '../helpers/server-process.js';
import { browserSkip } from '../fetchers/chromium.js';

const skip = browserSkip();
let world: InteractionWorld;

if (!skip) {
  before(async () => (world = await startInteractionWorld()), { timeout: 60_000 });
  after(() => world?.close());
}

const COOKIE_VALUE = SESSION_COOKIE.split('=')[1]!;
const TOKEN = BEARER_TOKEN.split(' ')[1]!;
const CUSTOM = 'x-custom-value-never-logged';
const MEMBERS = /Members only/;
/** Every way the caller's credentials are given: a cookie by name, a Cookie header, a bearer token. */
const CREDENTIALS = {
  cookies: { cookies: { session: COOKIE_VALUE } },
  'a Cookie header': { headers: { Cookie: SESSION_COOKIE } },
  Authorization: { headers: { Authorization: BEARER_TOKEN } },
} as const;
/** All of them at once, with a custom header besides. */
const EVERYTHING = { cookies: { session: COOKIE_VALUE }, headers: { Authorization: BEARER_TOKEN, 'X-Custom': CUSTOM } };

const carriesAny = (request: Received) =>
  request.cookie !== undefined || request.authorization !== undefined || request.custom !== undefined;
const receivedAt = (received: Received[], path: string) => received.filter((request) => request.path === path);

/** The members' page refused: the site's 401 as a 502 upstream_status, and nothing of the page. */
function assertRefused(res: Answer): void {
  assertError(res, 502, 'upstream_status');
  assert.equal(res.body.upstream_status, 401, res.text);
  assert.doesNotMatch(res.text, /Members only|secret recipe/);
}

async function cacheStatus(url: string): Promise<{ cached: boolean }> {
  const res = await world.api.request('GET', `/cache?url=${encodeURIComponent(url)}`, undefined, withKey(world.apiKey));
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe("a page behind the caller's cookie or token", { skip, timeout: 300_000 }, () => {
  beforeEach(() => {
    world.site.received.length = 0;
    world.site.other.received.length = 0;
  });

  test('without them: the 401 as a 502 upstream_status', async () => {
    assertRefused(await world.fetchPage({ url: world.site.url('/private') }));
    assertRefused(await world.fetchPage({ url: world.site.url('/private'), fetcher: 'browser' }));
  });

  test('with them, through the html fetcher (auto) and the browser', async () => {
    const url = world.site.url('/private');
    for (const [how, given] of Object.entries(CREDENTIALS)) {
      const html = await world.fetchPage({ url, ...given });
      assert.equal(html.status, 200, `${how}: ${html.text}`);
      assert.equal(html.body.fetch_info.fetcher_used, 'html', how);
      assert.match(html.body.markdown, MEMBERS, how);
      assert.match(assertBrowserAnswer(await world.fetchPage({ url, fetcher: 'browser', ...given })), MEMBERS, how);
    }
    const privateRequests = receivedAt(world.site.received, '/private');
    assert.equal(privateRequests.length, 6);
    for (const request of privateRequests)
      assert.ok(request.cookie === SESSION_COOKIE || request.authorization === BEARER_TOKEN, JSON.stringify(request));
  });

  test('a redirect to another origin carries none of them, with the html fetcher and the browser', async () => {
    for (const fetcher of ['auto', 'browser']) {
      world.site.received.length = 0;
      world.site.other.received.length = 0;
      const res = await world.fetchPage({ url: world.site.url('/private-redirect'), fetcher, ...EVERYTHING });
      assert.equal(res.status, 200, `${fetcher}: ${res.text}`);
      assert.match(res.body.markdown, /Landing elsewhere/, fetcher);
      const [asked] = receivedAt(world.site.received, '/private-redirect');
      assert.deepEqual(
        asked && [asked.cookie, asked.authorization, asked.custom],
        [SESSION_COOKIE, BEARER_TOKEN, CUSTOM],
        `${fetcher}: the requested origin gets them`,
      );
      assert.ok(receivedAt(world.site.other.received, '/landing').length > 0, fetcher);
      assert.deepEqual(world.site.other.received.filter(carriesAny), [], `${fetcher}: the other origin gets none`);
    }
  });

  test("another origin's subresources (a script, a fetch) get none of them in the browser", async () => {
    const res = await world.fetchPage({ url: world.site.url('/private-assets'), fetcher: 'browser', ...EVERYTHING });
    assert.match(assertBrowserAnswer(res), /Page with assets/);
    const [page] = receivedAt(world.site.received, '/private-assets');
    assert.equal(page?.cookie, SESSION_COOKIE);
    const paths = world.site.other.received.map((request) => request.path);
    assert.ok(paths.includes('/script.js') && paths.includes('/api'), `the other origin was asked: ${paths.join()}`);
    assert.deepEqual(world.site.other.received.filter(carriesAny), []);
  });
});

describe('what was fetched with credentials is never where others read', { skip, timeout: 300_000 }, () => {
  test('the same URL without the cookie afterwards gets the 401, and /cache says it is not cached', async () => {
    const url = world.site.url('/private');
    for (const [fetcher, given] of [
      ['auto', CREDENTIALS.cookies],
      ['browser', CREDENTIALS.Authorization],
    ] as const) {
      const members = await world.fetchPage({ url, fetcher, use_cache: true, ...given });
      assert.equal(members.status, 200, members.text);
      assert.match(members.body.markdown, MEMBERS);
      assertRefused(await world.fetchPage({ url, fetcher, use_cache: true }));
      assertRefused(await world.fetchPage({ url, use_cache: true }));
      assert.equal((await cacheStatus(url)).cached, false, fetcher);
    }
  });

  test('another cookie does not reach the copy made with the right one', async () => {
    const url = world.site.url('/private');
    const right = await world.fetchPage({ url, use_cache: true, ...CREDENTIALS.cookies });
    assert.equal(right.status, 200, right.text);
    assertRefused(await world.fetchPage({ url, use_cache: true, cookies: { session: 'someone-else' } }));
  });

  test('a credentialed request does not read the shared copy: it is fetched with its credentials', async () => {
    const url = world.site.url('/tall');
    assert.equal((await world.fetchPage({ url, use_cache: true })).status, 200);
    const shared = await world.fetchPage({ url, use_cache: true });
    assert.equal(shared.body.cache?.hit, true, 'the plain URL is cached for everyone');
    world.site.received.length = 0;
    const credentialed = await world.fetchPage({ url, use_cache: true, ...CREDENTIALS.cookies });
    assert.equal(credentialed.status, 200, credentialed.text);
    assert.equal(credentialed.body.cache.hit, false);
    assert.equal(receivedAt(world.site.received, '/tall')[0]?.cookie, SESSION_COOKIE);
  });
});

describe("the reader provider never gets the caller's credentials", { skip, timeout: 300_000 }, () => {
  test('in auto, a page that refuses them falls back to no reader: the 401, the reader never asked', async (t) => {
    const reader = await startReaderStandIn('test-reader-key');
    t.after(() => reader.close());
    const withReader = await startInteractionWorld({
      READER_BASE_URL: reader.baseUrl,
      READER_API_KEY: 'test-reader-key',
    });
    t.after(() => withReader.close());
    const url = withReader.site.url('/private');
    // Without credentials the site's refusal goes to the reader: it is on this route.
    const plain = await withReader.fetchPage({ url });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.fetch_info.fetcher_used, 'reader');
    assert.deepEqual(reader.requested, [url]);
    const refused = await withReader.fetchPage({ url, cookies: { session: 'someone-else' } });
    assertRefused(refused);
    const skipped = refused.body.attempts?.find((attempt: { fetcher: string }) => attempt.fetcher === 'reader');
    assert.equal(skipped?.outcome, 'unavailable', refused.text);
    assert.match(skipped.detail, /never sent to it/);
    const members = await withReader.fetchPage({ url, ...CREDENTIALS.Authorization });
    assert.equal(members.body.fetch_info?.fetcher_used, 'html', members.text);
    assert.deepEqual(reader.requested, [url], 'the reader was asked once, without credentials');
  });
});

describe('credentials never reach the request log', { skip, timeout: 300_000 }, () => {
  test('a server logging everything (trace) writes neither the cookie, the token nor a custom header', async (t) => {
    const site = await startInteractionSite();
    t.after(() => site.close());
    // Its own process, as deployed (dist/, which `npm test` builds first), with every log line it writes; loopback
    // addresses allowed (no guard rules to inject into another process).
    const server = await startServerProcess(t, {
      LOG_LEVEL: 'trace',
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      ROBOTS_TXT: 'ignore',
      BROWSER_POOL_SIZE: '1',
      EXTRACT_WORKERS: '1',
    });
    const ask = async (id: string, method: string, path: string, body?: object) => {
      const res = await fetch(server.base + path, {
        method,
        headers: { 'x-request-id': id, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      return { id, status: res.status, text: await res.text() };
    };
    const answers = [
      await ask('members-html', 'POST', '/fetch', { url: site.url('/private'), ...EVERYTHING }),
      await ask('members-browser', 'POST', '/fetch', { url: site.url('/private'), fetcher: 'browser', ...EVERYTHING }),
      await ask('redirect', 'POST', '/fetch', { url: site.url('/private-redirect'), ...EVERYTHING }),
      await ask('missing', 'POST', '/fetch', { url: site.url('/no-such-page'), ...EVERYTHING }),
      await ask('step-fails', 'POST', '/fetch', {
        url: site.url('/private'),
        actions: [{ type: 'click', selector: '#none' }],
        timeout: 5000,
        ...EVERYTHING,
      }),
      await ask('bad-header', 'POST', '/fetch', {
        url: site.url('/private'),
        ...EVERYTHING,
        headers: { ...EVERYTHING.headers, Host: 'example.com' },
      }),
      await ask('in-a-url', 'GET', `/r/${site.url('/private')}?cookies=${encodeURIComponent(SESSION_COOKIE)}`),
    ];
    assert.deepEqual(
      answers.map(({ id, status }) => [id, status]),
      [
        ['members-html', 200],
        ['members-browser', 200],
        ['redirect', 200],
        ['missing', 502],
        ['step-fails', 422],
        ['bad-header', 422],
        ['in-a-url', 422],
      ],
      answers.map((answer) => answer.text).join('\n'),
    );
    // A request's log line may be written after its answer arrived here: wait for each.
    for (const { id } of answers) {
      while (!server.output().includes(`"reqId":"${id}"`)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const output = server.output();
    assert.match(output, /\?cookies=\[REDACTED\]/, 'the URL that held a cookie is logged without it');
    for (const secret of [COOKIE_VALUE, TOKEN, CUSTOM]) {
      const lines = output.split('\n').filter((line) => line.includes(secret));
      assert.deepEqual(lines, [], `${secret} was logged`);
    }
  });
});
