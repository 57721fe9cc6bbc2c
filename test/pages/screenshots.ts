// `npm run screenshots`: desktop and phone screenshots of the landing page, the examples, one example, one
// integration page and the dashboard (signed in, with a few days of usage) in screenshots/ (git-ignored).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { signIn, signUp, withKey } from '../helpers/accounts.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { buildTestApp } from '../helpers/test-app.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { launchBrowser } from './browser.js';

const OUT = join(REPO_ROOT, 'screenshots');
const PAGES: [name: string, path: string][] = [
  ['landing', '/'],
  ['examples', '/examples'],
  ['example-long-page', '/examples/long-page-in-parts'],
  ['integration-claude', '/claude'],
  ['dashboard', '/dashboard'],
];
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const DAY_MS = 86_400_000;

const cleanups: (() => Promise<void>)[] = [];
try {
  const [smtp, site] = await Promise.all([startSmtpServer(), startFixtureSite()]);
  cleanups.push(smtp.close, site.close);
  // Usage on several days of this month: the accounts clock is moved back, then restored.
  const now = Date.now();
  const clock = { at: now, now: () => clock.at };
  const api = await buildTestApp(
    { after: (fn: () => Promise<void>) => cleanups.push(fn) },
    { SMTP_URL: smtp.url },
    { clock },
  );
  const { email, apiKey } = await signUp(api);
  const today = new Date(now).getUTCDate();
  for (const [daysAgo, fetches] of [
    [9, 3],
    [6, 7],
    [4, 2],
    [2, 5],
    [0, 4],
  ] as const) {
    if (daysAgo >= today) continue;
    clock.at = now - daysAgo * DAY_MS;
    for (let i = 0; i < fetches; i++)
      await api.request('POST', '/fetch', { url: site.url(`/unique/${daysAgo}-${i}`) }, withKey(apiKey));
  }
  await api.request('POST', '/fetch', { url: site.url('/article') }, withKey(apiKey));
  await api.request('POST', '/fetch', { url: site.url('/article') }, withKey(apiKey));
  clock.at = now;
  const { cookie } = await signIn(api, smtp, email);
  const [name, value] = cookie.split('=') as [string, string];

  mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    const context = await browser.newContext({ viewport });
    await context.addCookies([{ name, value, url: api.base }]);
    const page = await context.newPage();
    for (const [page_name, path] of PAGES) {
      await page.goto(api.base + path);
      await page.screenshot({ path: join(OUT, `${page_name}-${device}.png`), fullPage: true });
    }
    await context.close();
  }
  process.stdout.write(`wrote ${PAGES.length * 2} screenshots to ${OUT}\n`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
