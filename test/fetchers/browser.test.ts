// The browser fetcher and its pool in Debian's Chromium: rendering, the SSRF guard on every request a page makes,
// no images/fonts/WebSockets, isolation between callers, the queue bound, restart after a crash, shutdown, and a
// remote browser over CDP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CHROMIUM_FLAGS,
  createBrowserPool,
  remoteEndpoint,
  type BrowserPool,
} from '../../src/fetchers/browser-pool.js';
import { createBrowserFetcher } from '../../src/fetchers/browser.js';
import type { Fetcher } from '../../src/fetchers/types.js';
import { createAddressPolicy, type AddressPolicy } from '../../src/net/guard.js';
import { startFetcherSite, startSecretServer, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { browserSkip, CHROMIUM_PATH } from './chromium.js';

type Server = Awaited<ReturnType<typeof startSecretServer>>;
let site: FetcherSite;
let secret: Server;
let policy: AddressPolicy;
let rebindLookups = 0;
const pools: BrowserPool[] = [];

/**
 * A pool and fetcher with the test policy: 127.0.0.1 counts as public, everything else (127.0.0.2 above all) as
 * private.
 */
function makeFetcher(
  options: { size?: number; queueMax?: number; chromiumPath?: string; timeoutMs?: number; waitMs?: number } = {},
): { pool: BrowserPool; fetcher: Fetcher } {
  const pool = createBrowserPool({
    policy,
    size: options.size ?? 2,
    queueMax: options.queueMax ?? 8,
    chromiumPath: options.chromiumPath ?? CHROMIUM_PATH,
    userAgent: 'FetchdownBot/1.0 (test)',
    acquireTimeoutMs: 60_000,
  });
  pools.push(pool);
  return {
    pool,
    fetcher: createBrowserFetcher({
      pool,
      policy,
      waitMs: options.waitMs ?? 4000,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: 1 << 20,
    }),
  };
}

const skip = browserSkip();
let shared: { pool: BrowserPool; fetcher: Fetcher };

// Generous bounds, so that a hang fails the run instead of stalling it.
const SUITE = { skip, timeout: 180_000 };
const HOOK = { timeout: 60_000 };

if (!skip) {
  before(async () => {
    secret = await startSecretServer('127.0.0.2');
    site = await startFetcherSite({ secret: secret.origin });
    policy = createAddressPolicy({
      allowPrivateNetworks: false,
      isBlocked: (ip) => ip !== '127.0.0.1',
      // rebind.test: the first answer is allowed, every later one is the internal address.
      resolveHost: async (hostname) => {
        if (hostname === 'rebind.test')
          return [{ address: rebindLookups++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
        throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
      },
    });
    shared = makeFetcher();
  }, HOOK);
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await site.close();
    await secret.close();
  }, HOOK);
}

describe('browser fetcher', SUITE, () => {
  test('renders an app shell: the script fetches its data and writes the article', async () => {
    const outcome = await shared.fetcher.fetch(new URL(site.url('/app-shell')));
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.match(outcome.page.markdown, /^# Rendered by Script\n/);
    assert.equal(outcome.page.title, 'Rendered by Script', "the rendered headline, not the shell's <title>");
    assert.match(outcome.page.markdown, /six hours of direct sun/);
    assert.equal(outcome.page.statusCode, 200);
    assert.equal(site.hits('/api/article.json'), 1);
  });

  test('images and fonts are never requested', () => {
    assert.equal(site.hits('/pixel.png'), 0);
    assert.equal(site.hits('/font.woff2'), 0);
  });

  test('a page reaching for an internal address (script, style, img, iframe, fetch, XHR, WebSocket) gets nothing', async () => {
    const outcome = await shared.fetcher.fetch(new URL(site.url('/ssrf')));
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.match(outcome.page.markdown, /fetch refused/);
    assert.ok(!outcome.page.markdown.includes('LEAKED') && !outcome.page.markdown.includes('TOP-SECRET'));
    assert.equal(secret.hits(), 0, 'the internal server saw no request at all');
  });

  test('DNS rebinding inside the page: the proxy resolves again with the guard and refuses', async () => {
    rebindLookups = 0;
    const target = `http://rebind.test:${new URL(secret.origin).port}`;
    const outcome = await shared.fetcher.fetch(new URL(site.url(`/ssrf-to/${encodeURIComponent(target)}`)));
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.ok(rebindLookups >= 2, 'the route check and the proxy both resolved');
    assert.ok(!outcome.page.markdown.includes('LEAKED'));
    assert.equal(secret.hits(), 0);
  });

  test('the target itself, and a redirect to an internal address, are blocked_url', async () => {
    const direct = await shared.fetcher.fetch(new URL(secret.url('/')));
    assert.ok(!direct.ok);
    assert.equal(direct.failure.code, 'blocked_url');
    const redirected = await shared.fetcher.fetch(
      new URL(site.url(`/redirect?to=${encodeURIComponent(secret.url('/'))}`)),
    );
    assert.ok(!redirected.ok);
    assert.equal(redirected.failure.code, 'blocked_url');
    assert.equal(secret.hits(), 0);
  });

  test('WebSockets are refused even to an allowed host', async () => {
    const before = site.hits('/ws');
    const outcome = await shared.fetcher.fetch(new URL(site.url(`/ws-page?target=${encodeURIComponent(site.origin)}`)));
    assert.ok(outcome.ok);
    assert.ok(!outcome.page.markdown.includes('LEAKED-WS'));
    assert.equal(site.hits('/ws') - before, 0);
  });

  test('a bot challenge rendered in the browser is blocked_by_site, not content', async () => {
    const outcome = await shared.fetcher.fetch(new URL(site.url('/challenge-200')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'blocked_by_site');
  });

  test('callers never see each other: cookies, localStorage and sessionStorage are gone for the next one', async () => {
    const { fetcher } = makeFetcher({ size: 1 });
    assert.ok((await fetcher.fetch(new URL(site.url('/set-state')))).ok);
    const seen = await fetcher.fetch(new URL(site.url('/show-state')));
    assert.ok(seen.ok);
    assert.match(seen.page.markdown, /server-cookie=none local=none session=none/);
  });
});

describe('browser pool', SUITE, () => {
  test('one browser serves many pages; contexts are reused up to the pool size', async () => {
    const { pool, fetcher } = makeFetcher({ size: 2 });
    const results = await Promise.all([1, 2, 3, 4].map(() => fetcher.fetch(new URL(site.url('/article')))));
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results.filter((r) => !r.ok)),
    );
    assert.equal(pool.stats().launches, 1);
    assert.ok(pool.stats().contexts <= 2);
  });

  test("every lease of a slot counts its page's requests (the quiet wait's), not only the slot's first", async () => {
    const { pool } = makeFetcher({ size: 1 });
    for (const lease of [1, 2, 3]) {
      const counted = await pool.withPage(async ({ page, network }) => {
        const before = network.lastActivity;
        await page.goto(site.url('/app-shell'), { waitUntil: 'networkidle' });
        return network.lastActivity > before && network.inflight === 0;
      });
      assert.deepEqual(counted, { ok: true, value: true }, `lease ${lease}`);
    }
  });

  test('a full queue answers fetcher_unavailable (busy) at once instead of waiting', async () => {
    const { fetcher } = makeFetcher({ size: 1, queueMax: 0 });
    const [first, second] = await Promise.all([
      fetcher.fetch(new URL(site.url('/app-shell'))),
      fetcher.fetch(new URL(site.url('/app-shell'))),
    ]);
    const failed = [first, second].filter((r) => !r.ok);
    assert.equal(failed.length, 1);
    assert.ok(
      !failed[0]!.ok && failed[0]!.failure.code === 'fetcher_unavailable' && /busy/.test(failed[0]!.failure.detail),
    );
  });

  test('after the browser dies, the next page starts a new one', async () => {
    const { pool, fetcher } = makeFetcher({ size: 1 });
    assert.ok((await fetcher.fetch(new URL(site.url('/article')))).ok);
    await pool.withPage(async (lease) => lease.page.context().browser()?.close());
    const again = await fetcher.fetch(new URL(site.url('/article')));
    assert.ok(again.ok, JSON.stringify(again));
    assert.equal(pool.stats().launches, 2);
  });

  test('a page that blocks its main thread is given up at the deadline, and the slot serves the next page', async () => {
    const { fetcher } = makeFetcher({ size: 1, timeoutMs: 2000, waitMs: 1000 });
    const busy = await fetcher.fetch(new URL(site.url('/busy-loop')));
    assert.ok(!busy.ok);
    assert.equal(busy.failure.code, 'upstream_timeout');
    const next = await fetcher.fetch(new URL(site.url('/article')));
    assert.ok(next.ok, JSON.stringify(next));
  });

  test('no browser installed: unavailable says why, fetch fails cleanly', async () => {
    const { fetcher } = makeFetcher({ chromiumPath: '/nonexistent/chromium' });
    assert.match(fetcher.unavailable() ?? '', /no browser installed at \/nonexistent\/chromium/);
    const outcome = await fetcher.fetch(new URL(site.url('/article')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'fetcher_unavailable');
  });

  test('close() shuts the browser and refuses further pages', async () => {
    const { pool, fetcher } = makeFetcher({ size: 1 });
    assert.ok((await fetcher.fetch(new URL(site.url('/article')))).ok);
    await pool.close();
    assert.equal(pool.stats().contexts, 0);
    assert.match(pool.unavailable() ?? '', /shutting down/);
  });
});

describe('remote browser over CDP (BROWSER_WS_ENDPOINT)', SUITE, () => {
  test('the key goes as ?token= and as a Bearer header', () => {
    assert.deepEqual(remoteEndpoint('wss://browser.example/chromium?stealth=1', 'k3y'), {
      url: 'wss://browser.example/chromium?stealth=1&token=k3y',
      headers: { authorization: 'Bearer k3y' },
    });
    assert.deepEqual(remoteEndpoint('ws://127.0.0.1:9222/devtools/browser/x'), {
      url: 'ws://127.0.0.1:9222/devtools/browser/x',
      headers: {},
    });
  });

  test('pages render in the remote browser, and the route guard still refuses internal addresses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-cdp-'));
    // Its own process group, so the renderers and helpers it starts end with it and stop writing to dataDir.
    const chromium = spawn(
      CHROMIUM_PATH,
      [...CHROMIUM_FLAGS, '--remote-debugging-port=0', `--user-data-dir=${dataDir}`, 'about:blank'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        let seen = '';
        chromium.stderr.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
          if (match) resolve(match[1]!);
        });
        chromium.once('exit', (code) => reject(new Error(`chromium exited with ${code}: ${seen.slice(-500)}`)));
      });
      const pool = createBrowserPool({
        policy,
        size: 1,
        queueMax: 2,
        chromiumPath: '/nonexistent',
        wsEndpoint: endpoint,
        userAgent: 'FetchdownBot/1.0 (test)',
        acquireTimeoutMs: 60_000,
      });
      pools.push(pool);
      const fetcher = createBrowserFetcher({ pool, policy, waitMs: 4000, timeoutMs: 10_000, maxBytes: 1 << 20 });
      assert.equal(fetcher.unavailable(), null, 'no local Chromium is needed');
      const shell = await fetcher.fetch(new URL(site.url('/app-shell')));
      assert.ok(shell.ok, JSON.stringify(shell));
      assert.match(shell.page.markdown, /Rendered by Script/);
      const before = secret.hits();
      const curious = await fetcher.fetch(new URL(site.url('/ssrf')));
      assert.ok(curious.ok);
      assert.ok(!curious.page.markdown.includes('LEAKED'));
      assert.equal(secret.hits(), before);
      await pool.close();
    } finally {
      const exited = chromium.exitCode !== null ? Promise.resolve() : once(chromium, 'exit').catch(() => undefined);
      try {
        process.kill(-chromium.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    }
  });
});
