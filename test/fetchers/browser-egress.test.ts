// Nothing but the pages we fetch leaves the browser: over a few fetches in Debian's Chromium, the egress proxy lets
// out requests to the fixture site alone; Chromium's own calls (component updates, account checks) are refused.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { createBrowserPool, type BrowserPool } from '../../src/fetchers/browser-pool.js';
import { createBrowserFetcher } from '../../src/fetchers/browser.js';
import { createAddressPolicy } from '../../src/net/guard.js';
import { startFetcherSite, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { browserSkip, CHROMIUM_PATH } from './chromium.js';

const skip = browserSkip();
let site: FetcherSite;
let pool: BrowserPool;
const leftFromPages = new Set<string>();
const refusedBrowserOwn = new Set<string>();

if (!skip) {
  before(async () => {
    site = await startFetcherSite();
    const policy = createAddressPolicy({ allowPrivateNetworks: true });
    pool = createBrowserPool({
      policy,
      size: 1,
      queueMax: 4,
      chromiumPath: CHROMIUM_PATH,
      userAgent: 'FetchdownBot/1.0 (test)',
      acquireTimeoutMs: 30_000,
      onEgress: (target, fromPage) => (fromPage ? leftFromPages : refusedBrowserOwn).add(target.host),
    });
  });
  after(async () => {
    await pool.close();
    await site.close();
  });
}

test(
  'over a few fetches, only the fixture host leaves through the egress proxy',
  { skip, timeout: 120_000 },
  async (t) => {
    const fetcher = createBrowserFetcher({
      pool,
      policy: createAddressPolicy({ allowPrivateNetworks: true }),
      waitMs: 4000,
      timeoutMs: 15_000,
      maxBytes: 1 << 20,
    });
    for (const path of ['/article', '/app-shell', '/short-analytics', '/article']) {
      const outcome = await fetcher.fetch(new URL(site.url(path)));
      assert.ok(outcome.ok, `${path}: ${JSON.stringify(outcome)}`);
    }
    // Chromium's background calls start a second or two after launch: give them the time to show up.
    await sleep(3000);
    assert.deepEqual([...leftFromPages], [new URL(site.origin).host]);
    // The fixture is there too: a page's first request on a connection is challenged (407) before it sends credentials.
    const own = [...refusedBrowserOwn].filter((host) => host !== new URL(site.origin).host);
    t.diagnostic(`the browser's own requests refused at the proxy: ${own.join(', ') || 'none'}`);
  },
);
