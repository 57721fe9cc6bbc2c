// Every public page in Chromium: 200 text/html under 60 KB with the strict CSP, no console errors, no failed requests,
// nothing from another host, no serious or critical axe-core violations; the unknown example is a 404 page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { EXAMPLES } from '../../src/pages/examples/catalog.js';
import { INTEGRATIONS } from '../../src/discovery/integrations.js';
import { browserSkip } from '../fetchers/chromium.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { accessibilityViolations, launchBrowser, watchPage } from './browser.js';

const PAGES = [
  '/',
  '/examples',
  ...EXAMPLES.map((e) => `/examples/${e.slug}`),
  ...INTEGRATIONS.map((i) => i.path),
  '/dashboard',
];
const MAX_HTML_BYTES = 60 * 1024;

describe('public pages in a browser', { skip: browserSkip() }, () => {
  let api: TestApp;
  let browser: Browser;
  before(async () => {
    api = await buildTestApp({ after }, { PUBLIC_BASE_URL: 'https://fetchdown.example' });
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  for (const path of [...PAGES, '/examples/no-such-example']) {
    test(`${path}: clean, accessible, self-contained`, async () => {
      const page = await browser.newPage();
      const watch = watchPage(page, api.base);
      const response = await page.goto(api.base + path, { waitUntil: 'load' });
      assert.ok(response);
      assert.equal(response.status(), path.includes('no-such') ? 404 : 200);
      assert.match(response.headers()['content-type'] ?? '', /^text\/html; charset=utf-8/);
      assert.match(response.headers()['content-security-policy'] ?? '', /script-src 'self'; style-src 'self'/);
      const body = await response.body();
      assert.ok(body.length < MAX_HTML_BYTES, `${path} is ${body.length} bytes`);
      assert.ok((await page.title()).length > 0);
      assert.ok(await page.locator('meta[name="description"]').getAttribute('content'));
      assert.equal(await page.locator('h1').count(), 1);
      // The stylesheet applied (served from our origin under the CSP): the header's navigation is a flex row.
      assert.equal(await page.locator('.top nav').evaluate((nav) => getComputedStyle(nav).display), 'flex');
      assert.deepEqual(await accessibilityViolations(page), []);
      await page.close();
      // A 404 page is logged by the browser as a failed load of the document itself; nothing else may fail.
      const expected = path.includes('no-such')
        ? [
            `console error on ${api.base}${path}: Failed to load resource: the server responded with a status of 404 (Not Found)`,
          ]
        : [];
      assert.deepEqual(watch.problems, expected);
    });
  }

  test('an example page shows the recorded answer, and the copy buttons work with JavaScript on', async () => {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${api.base}/examples/article-to-markdown`);
    await assert.doesNotReject(page.getByText('# Growing Tomatoes on a Balcony').first().waitFor());
    assert.ok(await page.getByText('curl -s -X POST https://fetchdown.example/fetch').isVisible());
    const copy = page.locator('button[data-copy]').first();
    await copy.click();
    // The label changes once the clipboard's promise settles, so wait for it rather than read it at once.
    const label = await page.waitForFunction(
      (button) => button?.textContent !== 'Copy' && button?.textContent,
      await copy.elementHandle(),
    );
    assert.equal(await label.jsonValue(), 'Copied');
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^curl -s -X POST/);
    await context.close();
  });

  test('integration pages carry PUBLIC_BASE_URL in their set-up', async () => {
    const page = await browser.newPage();
    for (const integration of INTEGRATIONS) {
      await page.goto(api.base + integration.path);
      assert.match(await page.locator('main').innerText(), /https:\/\/fetchdown\.example\/mcp/, integration.path);
    }
    await page.close();
  });
});
