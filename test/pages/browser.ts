// Driving the pages in Debian's Chromium (playwright-core): launch, a watcher that collects what a page must never do
// (console errors, failed requests, requests to another origin), and an axe-core accessibility check.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../../src/fetchers/browser-pool.js';
import { CHROMIUM_PATH } from '../fetchers/chromium.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, timeout: 30_000 });
}

/**
 * Everything a page did wrong since the watch began: console errors (CSP violations among them), failed requests,
 * requests to hosts other than ours (`elsewhere`: the origins a journey is meant to visit, such as the payment page).
 */
export function watchPage(page: Page, origin: string, elsewhere: string[] = []): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (message) => {
    // Another site the journey visits (the payment page) answers for its own console, not ours.
    if (message.type() === 'error' && page.url().startsWith(origin))
      problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`script error on ${page.url()}: ${error.message}`));
  page.on('requestfailed', (request) => {
    // ERR_ABORTED is the browser cancelling a request itself, as when a click navigates away while the favicon still
    // loads (seen in CI); a server error is a response, and a CSP refusal is a console error, both still caught.
    const reason = request.failure()?.errorText;
    if (reason !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} (${reason})`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('data:') && new URL(url).origin !== origin && !elsewhere.includes(new URL(url).origin))
      problems.push(`request to another origin: ${url}`);
  });
  return { problems };
}

/**
 * axe-core's serious and critical violations on the current page. The script is evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern, so the test runs with the real CSP in force.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    if (result.passes.length === 0) throw new Error('axe-core checked nothing');
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v: { id: string; impact: string; help: string; nodes: string[] }) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`,
    );
}
