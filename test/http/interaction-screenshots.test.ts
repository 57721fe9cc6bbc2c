// Screenshots (issue 34) over HTTP, in Debian's Chromium against the loopback interaction site: a URL in the answer,
// never the image in the JSON; PNG or JPEG at the viewport's size, the whole page, a phone's at its pixel ratio, the
// pictures of screenshot actions; served by GET /screenshots/<id>.<format> to the caller who took them alone, and
// only until they expire (the cache's clock, injected and moved on here).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import {
  PUBLIC_BASE_URL,
  assertBrowserAnswer,
  assertJpeg,
  assertNoBase64Image,
  getImage,
  pngSize,
  startInteractionWorld,
  type Answer,
  type InteractionWorld,
} from '../helpers/interaction-app.js';
import { browserSkip } from '../fetchers/chromium.js';

const skip = browserSkip();
let world: InteractionWorld;
/** Added to the system time by the app's clock: moving it on expires what the cache holds. */
let clockOffset = 0;

if (!skip) {
  before(async () => (world = await startInteractionWorld({}, { clock: { now: () => Date.now() + clockOffset } })), {
    timeout: 60_000,
  });
  after(() => world?.close());
}

const DAY_MS = 86_400_000;
const SHOT_URL = (format: string) =>
  new RegExp(`^${PUBLIC_BASE_URL.replace(/\./g, '\\.')}/screenshots/[A-Za-z0-9_-]{24}\\.${format}$`);

/** A browser answer with a screenshot_url of `format`, and no image inside it. */
function shotOf(res: Answer, format = 'png'): string {
  assertBrowserAnswer(res);
  assertNoBase64Image(res.text);
  assert.match(res.body.screenshot_url ?? '', SHOT_URL(format), res.text);
  return res.body.screenshot_url as string;
}

/** The image behind a screenshot URL, for the world's own account: its bytes, after checking its type. */
async function imageOf(url: string, type: string): Promise<Buffer> {
  const image = await getImage(world.api, url, withKey(world.apiKey));
  assert.equal(image.status, 200, image.bytes.toString());
  assert.equal(image.type, type);
  return image.bytes;
}

describe('screenshots: formats and sizes', { skip, timeout: 300_000 }, () => {
  test("a PNG of the first screen at the desktop viewport's size, behind a URL in the answer", async () => {
    const url = shotOf(await world.fetchPage({ url: world.site.url('/tall'), screenshot: {} }));
    assert.deepEqual(pngSize(await imageOf(url, 'image/png')), { width: 1280, height: 900 });
  });

  test('a JPEG when asked', async () => {
    const res = await world.fetchPage({ url: world.site.url('/tall'), screenshot: { format: 'jpeg' } });
    assertJpeg(await imageOf(shotOf(res, 'jpeg'), 'image/jpeg'));
  });

  test('full_page: the whole page, taller than the viewport', async () => {
    const res = await world.fetchPage({ url: world.site.url('/tall'), screenshot: { full_page: true } });
    const size = pngSize(await imageOf(shotOf(res), 'image/png'));
    assert.equal(size.width, 1280);
    assert.ok(size.height > 900, `height ${size.height}`);
  });

  test("a phone's screenshot: its 390 by 844 CSS pixels at 3 device pixels each, or its whole page", async () => {
    const screen = await world.fetchPage({ url: world.site.url('/whoami'), mobile: true, screenshot: {} });
    assert.deepEqual(pngSize(await imageOf(shotOf(screen), 'image/png')), { width: 1170, height: 2532 });
    const whole = await world.fetchPage({
      url: world.site.url('/tall'),
      mobile: true,
      screenshot: { full_page: true },
    });
    const size = pngSize(await imageOf(shotOf(whole), 'image/png'));
    assert.equal(size.width, 1170);
    assert.ok(size.height > 2532, `height ${size.height}`);
  });

  test('screenshot actions: their URLs in actions.screenshots, in step order, beside screenshot_url', async () => {
    const res = await world.fetchPage({
      url: world.site.url('/more'),
      actions: [
        { type: 'screenshot' },
        { type: 'click', selector: '#more' },
        { type: 'screenshot', format: 'jpeg', full_page: true },
      ],
      screenshot: {},
    });
    shotOf(res);
    const steps: string[] = res.body.actions?.screenshots;
    assert.equal(steps?.length, 2, res.text);
    assert.match(steps[0]!, SHOT_URL('png'));
    assert.match(steps[1]!, SHOT_URL('jpeg'));
    assert.equal(new Set([res.body.screenshot_url, ...steps]).size, 3, 'three pictures, three URLs');
    assert.deepEqual(pngSize(await imageOf(steps[0]!, 'image/png')), { width: 1280, height: 900 });
    assertJpeg(await imageOf(steps[1]!, 'image/jpeg'));
  });

  test('an answer without screenshots has neither field', async () => {
    const res = await world.fetchPage({
      url: world.site.url('/more'),
      actions: [{ type: 'click', selector: '#more' }],
    });
    assertBrowserAnswer(res);
    assert.equal(res.body.screenshot_url, undefined);
    assert.equal(res.body.actions, undefined);
  });

  test('each request takes its own picture: never a cached copy, never the same URL', async () => {
    const url = world.site.url('/tall');
    const first = await world.fetchPage({ url, use_cache: true, screenshot: {} });
    const second = await world.fetchPage({ url, use_cache: true, screenshot: {} });
    assert.equal(second.body.cache?.hit, false, second.text);
    assert.notEqual(shotOf(first), shotOf(second));
  });

  test('GET /r/ takes screenshot and screenshot actions as JSON query parameters', async () => {
    const actions = encodeURIComponent(JSON.stringify([{ type: 'screenshot', format: 'jpeg' }]));
    const res = await world.api.request(
      'GET',
      `/r/${world.site.url('/tall')}?screenshot=${encodeURIComponent('{"full_page":true}')}&actions=${actions}`,
      undefined,
      { ...withKey(world.apiKey), accept: 'application/json' },
    );
    assert.ok(pngSize(await imageOf(shotOf(res), 'image/png')).height > 900);
    assert.equal(res.body.actions?.screenshots?.length, 1, res.text);
    assertJpeg(await imageOf(res.body.actions.screenshots[0], 'image/jpeg'));
  });

  test('GET /r/ as Markdown gives the pictures in headers', async () => {
    const actions = encodeURIComponent(
      JSON.stringify([{ type: 'screenshot' }, { type: 'screenshot', format: 'jpeg' }]),
    );
    const res = await world.api.request(
      'GET',
      `/r/${world.site.url('/tall')}?screenshot=true&actions=${actions}`,
      undefined,
      {
        ...withKey(world.apiKey),
        accept: 'text/markdown',
      },
    );
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers.get('content-type')), /^text\/markdown/);
    assert.equal(res.headers.get('x-document-type'), 'html');
    assert.ok(pngSize(await imageOf(String(res.headers.get('x-screenshot-url')), 'image/png')).width > 0);
    const steps = String(res.headers.get('x-action-screenshots')).split(' ');
    assert.equal(steps.length, 2);
    assert.ok(pngSize(await imageOf(steps[0]!, 'image/png')).width > 0);
    assertJpeg(await imageOf(steps[1]!, 'image/jpeg'));
  });
});

describe('screenshots: who may see them, and for how long', { skip, timeout: 300_000 }, () => {
  test('another account, a caller without a key, a wrong extension or id: 404', async () => {
    const url = shotOf(await world.fetchPage({ url: world.site.url('/tall'), screenshot: {} }));
    await imageOf(url, 'image/png');
    const other = await signUp(world.api);
    const notFound = async (shot: string, headers: Record<string, string>) => {
      const image = await getImage(world.api, shot, headers);
      assert.equal(image.status, 404, `${shot} ${JSON.stringify(headers)}`);
      assert.equal(JSON.parse(image.bytes.toString()).code, 'not_found');
    };
    await notFound(url, withKey(other.apiKey));
    await notFound(url, { 'x-forwarded-for': '203.0.113.7' });
    await notFound(url.replace(/\.png$/, '.jpeg'), withKey(world.apiKey));
    await notFound(url.replace(/\/screenshots\/.{8}/, '/screenshots/AAAAAAAA'), withKey(world.apiKey));
  });

  test('a caller without a key: its address took it, and only its address sees it', async () => {
    const res = await world.api.request(
      'POST',
      '/fetch',
      { url: world.site.url('/tall'), screenshot: {}, use_cache: false },
      { 'x-forwarded-for': '203.0.113.8' },
    );
    const url = shotOf(res);
    const mine = await getImage(world.api, url, { 'x-forwarded-for': '203.0.113.8' });
    assert.equal(mine.status, 200);
    pngSize(mine.bytes);
    assert.equal((await getImage(world.api, url, { 'x-forwarded-for': '203.0.113.9' })).status, 404);
    assert.equal((await getImage(world.api, url, withKey(world.apiKey))).status, 404);
  });

  test('a day later (SCREENSHOT_TTL_SECONDS, 86400 by default) the screenshot is gone: 404', async () => {
    const url = shotOf(await world.fetchPage({ url: world.site.url('/tall'), screenshot: {} }));
    clockOffset += DAY_MS - 60_000;
    await imageOf(url, 'image/png');
    clockOffset += 120_000;
    const expired = await getImage(world.api, url, withKey(world.apiKey));
    assert.equal(expired.status, 404);
  });
});
