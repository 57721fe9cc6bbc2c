// POST /fetch (and /fetch/batch, GET /r/) on pages that need waiting and acting, in Debian's Chromium against the
// loopback interaction site with the guard on: a selector or a pause before reading, "load more", a form, infinite
// scroll, a cookie wall, a failing step, the caller's timeout, a click that leads to an internal address, a phone's
// view and a locale, and a render starved of time answered as a retryable 504, never as its skeleton.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withKey } from '../helpers/accounts.js';
import {
  assertBrowserAnswer,
  assertError,
  assertRetryable,
  startInteractionWorld,
  type InteractionWorld,
} from '../helpers/interaction-app.js';
import { browserSkip } from '../fetchers/chromium.js';

const skip = browserSkip();
let world: InteractionWorld;
/** The same site through an app whose browser may wait only 300 ms for a page to go quiet. */
let starved: InteractionWorld;

if (!skip) {
  before(
    async () => {
      world = await startInteractionWorld();
      starved = await startInteractionWorld({ BROWSER_WAIT_MS: '300', BROWSER_POOL_SIZE: '1' });
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await world?.close();
    await starved?.close();
  });
}

const LATE = 'Arrived late';
const click = (selector: string) => ({ type: 'click', selector });
/** The item numbers in a list of the fixture's items, in order. */
const itemNumbers = (markdown: string) =>
  [...markdown.matchAll(/Item number (\d+):/g)].map((match) => Number(match[1]));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('waits and actions', { skip, timeout: 600_000 }, () => {
  test('text that arrives after a second: waiting for its selector, or for a pause, reads it', async () => {
    const bySelector = assertBrowserAnswer(await world.fetchPage({ url: world.site.url('/late'), wait_for: '#ready' }));
    assert.match(bySelector, new RegExp(LATE));
    assert.doesNotMatch(bySelector, /Loading/);
    for (const pause of [2000, '2000']) {
      const byPause = assertBrowserAnswer(await world.fetchPage({ url: world.site.url('/late'), wait_for: pause }));
      assert.match(byPause, new RegExp(LATE), `wait_for ${JSON.stringify(pause)}`);
    }
  });

  test('a selector that never appears is a retryable 504 naming it, not the page as it was', async () => {
    const res = await world.fetchPage({ url: world.site.url('/late'), wait_for: '#never-there', timeout: 10_000 });
    assertError(res, 504, 'upstream_timeout');
    assert.match(res.body.detail, /#never-there/);
    assertRetryable(res);
    assert.doesNotMatch(res.text, /Arrived late|Loading/);
  });

  test('"load more" clicked three times: items 1 to 20, not 21', async () => {
    // Also when the button's handler fetches a moment after the click: each step is let settle from the step on.
    for (const path of ['/more', '/more?delay=100']) {
      const actions = [click('#more'), click('#more'), click('#more')];
      const markdown = assertBrowserAnswer(await world.fetchPage({ url: world.site.url(path), actions }));
      assert.deepEqual(itemNumbers(markdown), range(1, 20), path);
    }
  });

  test('the same page without actions is read by the html fetcher, at its price, with its first five items', async () => {
    const res = await world.fetchPage({ url: world.site.url('/more') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.fetch_info.fetcher_used, 'html');
    assert.equal(res.body.credits, 1);
    assert.deepEqual(itemNumbers(res.body.markdown), range(1, 5));
  });

  test('a form typed into and submitted, by clicking its button or by pressing Enter', async () => {
    const type = { type: 'type', selector: '#q', text: 'tomatoes' };
    for (const submit of [click('button[type=submit]'), { type: 'press', key: 'Enter' }]) {
      const res = await world.fetchPage({ url: world.site.url('/form'), actions: [type, submit] });
      const markdown = assertBrowserAnswer(res);
      assert.match(markdown, /You searched for tomatoes/, JSON.stringify(submit));
    }
  });

  test('infinite scroll: scrolled to the end three times, more than the first ten items', async () => {
    const markdown = assertBrowserAnswer(
      await world.fetchPage({
        url: world.site.url('/infinite'),
        actions: [{ type: 'scroll', to_end: true, times: 3 }],
      }),
    );
    const numbers = itemNumbers(markdown);
    assert.ok(numbers.length > 10, `items ${numbers.join(',')}`);
    assert.deepEqual(numbers, range(1, numbers.length), 'the items in order, none lost');
  });

  test('a cookie wall dismissed by a click', async () => {
    const markdown = assertBrowserAnswer(
      await world.fetchPage({ url: world.site.url('/cookie-wall'), actions: [click('#accept')] }),
    );
    assert.match(markdown, /Behind the wall/);
    assert.doesNotMatch(markdown, /We use cookies/);
  });

  test('a step that fails is a 422 action_failed naming its index, not the page read half-way', async () => {
    const res = await world.fetchPage({
      url: world.site.url('/more'),
      actions: [click('#more'), click('#no-such-button')],
      timeout: 8000,
    });
    assertError(res, 422, 'action_failed');
    assert.ok(res.body.detail.startsWith('actions[1] (click "#no-such-button")'), res.body.detail);
    assert.equal(res.body.action_index, 1);
    assert.doesNotMatch(res.text, /Item number/);
  });

  test("running out of the caller's timeout is a retryable 504, with the html fetcher and with the browser", async () => {
    for (const fetcher of ['auto', 'browser']) {
      const res = await world.fetchPage({ url: world.site.url('/hang'), fetcher, timeout: 2000 });
      assertError(res, 504, 'upstream_timeout');
      assertRetryable(res);
      assert.doesNotMatch(res.text, /Half/, fetcher);
    }
  });

  test('a click that navigates to an internal address is refused: 403 blocked_url, nothing reaches it', async () => {
    const res = await world.fetchPage({ url: world.site.url('/go-secret'), actions: [click('#go')] });
    assertError(res, 403, 'blocked_url');
    assert.match(res.body.detail, /127\.0\.0\.2/);
    assert.doesNotMatch(res.text, /TOP-SECRET/);
    assert.equal(world.secret.hits(), 0);
  });
});

describe("a phone's view and a locale", { skip, timeout: 300_000 }, () => {
  test("mobile: a phone's width and a mobile user agent, in the browser", async () => {
    const phone = assertBrowserAnswer(await world.fetchPage({ url: world.site.url('/whoami'), mobile: true }));
    assert.match(phone, /Width 390\b/);
    assert.match(phone, /Mobile/);
    const desktop = assertBrowserAnswer(await world.fetchPage({ url: world.site.url('/whoami'), fetcher: 'browser' }));
    assert.match(desktop, /Width 1280\b/);
    assert.doesNotMatch(desktop, /Mobile/);
    // Without a locale of the caller's, the browser's own: the same in the header and in the page.
    assert.match(desktop, /Accept-Language: en-US/);
    assert.match(desktop, /language en-US/);
  });

  test("locale de-DE: the Accept-Language the site receives and the browser's navigator.language", async () => {
    const url = world.site.url('/whoami');
    const rendered = assertBrowserAnswer(await world.fetchPage({ url, locale: 'de-DE', fetcher: 'browser' }));
    assert.match(rendered, /Accept-Language: de-DE/);
    assert.match(rendered, /language de-DE/);
    const auto = await world.fetchPage({ url, locale: 'de-DE' });
    assert.equal(auto.status, 200, auto.text);
    assert.match(auto.body.markdown, /Accept-Language: de-DE/);
  });
});

describe('a render that did not finish', { skip, timeout: 300_000 }, () => {
  test('starved of time on a slow app: a retryable 504, never a 200 with the skeleton', async () => {
    for (const fetcher of ['auto', 'browser']) {
      const res = await starved.fetchPage({ url: starved.site.url('/slow-app'), fetcher });
      assertError(res, 504, 'upstream_timeout');
      assert.match(res.body.detail, /did not finish rendering/, fetcher);
      assertRetryable(res);
      assert.doesNotMatch(res.text, /Loading/, fetcher);
    }
  });
});

describe('the fields on /fetch/batch and GET /r/', { skip, timeout: 300_000 }, () => {
  test('POST /fetch/batch: wait_for applies to each URL', async () => {
    const res = await world.api.request(
      'POST',
      '/fetch/batch',
      {
        urls: [world.site.url('/late'), world.site.url('/late?again=1'), world.site.url('/tall')],
        wait_for: '#ready',
        timeout: 10_000,
        use_cache: false,
      },
      withKey(world.apiKey),
    );
    assert.equal(res.status, 200, res.text);
    const [first, second, tall] = res.body.results;
    for (const result of [first, second]) {
      assert.equal(result.fetch_info?.fetcher_used, 'browser', JSON.stringify(result));
      assert.match(result.markdown, new RegExp(LATE));
    }
    assert.equal(tall.error?.status, 504, JSON.stringify(tall));
    assert.equal(tall.error.code, 'upstream_timeout');
    assert.match(tall.error.detail, /#ready/);
  });

  test('GET /r/<url>?wait_for=%23ready and ?actions=<json>', async () => {
    const reader = (path: string, query: string) =>
      world.api.request('GET', `/r/${world.site.url(path)}?${query}`, undefined, withKey(world.apiKey));
    const late = await reader('/late', 'wait_for=%23ready&use_cache=false');
    assert.equal(late.status, 200, late.text);
    assert.equal(late.headers.get('x-fetcher'), 'browser');
    assert.match(late.text, new RegExp(LATE));
    const pause = await reader('/late', 'wait_for=2000&use_cache=false');
    assert.equal(pause.status, 200, pause.text);
    assert.match(pause.text, new RegExp(LATE));
    const actions = encodeURIComponent(JSON.stringify([click('#more'), click('#more'), click('#more')]));
    const more = await reader('/more', `actions=${actions}&use_cache=false`);
    assert.equal(more.status, 200, more.text);
    assert.equal(more.headers.get('x-fetcher'), 'browser');
    assert.deepEqual(itemNumbers(more.text), range(1, 20));
  });
});
