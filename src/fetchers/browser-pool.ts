// One headless Chromium (Debian's, or a remote one over CDP) and a pool of guarded contexts reused across requests:
// a bounded queue when all are busy, a relaunch after a crash, storage wiped between callers, closed on shutdown.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { FetchFailure } from '../errors.js';
import type { AddressPolicy } from '../net/guard.js';
import { createLoadGuard, guardContext, type LoadGuard } from './browser-guard.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';

/**
 * Flags for Debian's Chromium on a closed network: without the background-networking ones it keeps trying to reach
 * Google's services. WebRTC may only use the proxy, so no UDP leaves past the guard. Flags are not enough (Chromium
 * 156 still asks update.googleapis.com for an on-demand component and accounts.google.com for sign-in state), so
 * the egress proxy also refuses whatever does not come from a page context (see launch()).
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--no-pings',
  '--disable-dev-shm-usage',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** A context serves this many pages, then is closed and replaced: bounds whatever a long-lived context accumulates. */
const CONTEXT_MAX_USES = 100;
/** After a failed launch, callers are told "unavailable" at once for this long instead of each trying again. */
const LAUNCH_RETRY_MS = 30_000;
const LAUNCH_TIMEOUT_MS = 30_000;
/** Teardown talks to a browser that may be wedged: no step of it may hold a slot, or shutdown, for longer. */
const TEARDOWN_TIMEOUT_MS = 10_000;

/** The promise's value, or undefined if it rejects or takes longer than `ms`. */
function bounded<T>(promise: Promise<T>, ms = TEARDOWN_TIMEOUT_MS): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

/** Runs in every document before the page's own scripts: marks DOM mutations for the quiet wait, removes WebRTC. */
const INIT_SCRIPT = `(() => {
  const key = Symbol.for('fetchdown.lastMutation');
  const mark = () => { window[key] = performance.now(); };
  mark();
  new MutationObserver(mark).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel']) { try { delete window[name]; } catch {} }
})();`;

export interface BrowserPoolOptions {
  policy: AddressPolicy;
  size: number;
  queueMax: number;
  chromiumPath: string;
  wsEndpoint?: string;
  apiKey?: string;
  userAgent: string;
  /** How long a caller may wait in the queue. */
  acquireTimeoutMs: number;
  /** Sees every URL (or host and port) the browser asks its egress proxy for; `fromPage` false for its own traffic. */
  onEgress?: (target: URL, fromPage: boolean) => void;
}

/** What a caller gets for one page load. */
export interface Lease {
  page: Page;
  load: LoadGuard;
  /** Requests of this page load not yet finished, and when the last one started or ended. */
  network: { inflight: number; lastActivity: number };
  /** The page's DevTools session (device, user agent and locale overrides); null where it could not be opened. */
  cdp: CDPSession | null;
  /** Why the egress proxy last failed to reach this URL's host and port; null with a remote browser (no proxy). */
  egressFailure(url: URL): FetchFailure | null;
}

export type LeaseOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface BrowserPool {
  unavailable(): string | null;
  withPage<T>(use: (lease: Lease) => Promise<T>, signal?: AbortSignal): Promise<LeaseOutcome<T>>;
  stats(): { launches: number; contexts: number; busy: number; queued: number };
  close(): Promise<void>;
}

interface Slot {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  cdp: CDPSession | null;
  lease: Lease | null;
  uses: number;
  healthy: boolean;
}

/** The remote endpoint with its key: as `?token=` (Browserless and compatible services) and as a Bearer header. */
export function remoteEndpoint(endpoint: string, apiKey?: string): { url: string; headers: Record<string, string> } {
  if (!apiKey) return { url: endpoint, headers: {} };
  const url = new URL(endpoint);
  if (!url.searchParams.has('token')) url.searchParams.set('token', apiKey);
  return { url: url.href, headers: { authorization: `Bearer ${apiKey}` } };
}

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  let browser: Browser | null = null;
  let launching: Promise<Browser> | null = null;
  let proxy: EgressProxy | null = null;
  // Known to this process alone: what sets a page's requests apart from the browser's own at the egress proxy.
  const proxyCredentials = { username: 'fetchdown', password: randomBytes(24).toString('base64url') };
  let lastLaunchFailure: { at: number; message: string } | null = null;
  let launches = 0;
  let closed = false;
  let busy = 0;
  const free: Slot[] = [];
  const slots = new Set<Slot>();
  const recycling = new Set<Promise<void>>();
  const waiting: { resolve: () => void; reject: (reason: string) => void }[] = [];

  function unavailable(): string | null {
    if (options.size === 0) return 'disabled (BROWSER_POOL_SIZE=0)';
    if (closed) return 'shutting down';
    if (!options.wsEndpoint && !existsSync(options.chromiumPath))
      return `no browser installed at ${options.chromiumPath} (CHROMIUM_PATH)`;
    if (lastLaunchFailure && performance.now() - lastLaunchFailure.at < LAUNCH_RETRY_MS)
      return `the browser failed to start: ${lastLaunchFailure.message}`;
    return null;
  }

  async function launch(): Promise<Browser> {
    launches++;
    // Loaded on first use: importing playwright-core costs ~0.6 s of CPU, most of the MCP and CLI start-up budget.
    const { chromium } = await import('playwright-core');
    if (options.wsEndpoint) {
      const { url, headers } = remoteEndpoint(options.wsEndpoint, options.apiKey);
      return chromium.connectOverCDP(url, { headers, timeout: LAUNCH_TIMEOUT_MS });
    }
    proxy ??= await startEgressProxy(options.policy, { credentials: proxyCredentials, onRequest: options.onEgress });
    return chromium.launch({
      executablePath: options.chromiumPath,
      headless: true,
      chromiumSandbox: false,
      timeout: LAUNCH_TIMEOUT_MS,
      // Loopback too goes through the proxy (Chromium bypasses it for loopback unless told `<-loopback>`). The
      // browser-wide proxy has no credentials: only the contexts' requests (createSlot) can pass it.
      args: [...CHROMIUM_FLAGS, `--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'],
    });
  }

  async function getBrowser(): Promise<Browser> {
    if (browser?.isConnected()) return browser;
    launching ??= launch().then(
      (started) => {
        browser = started;
        launching = null;
        lastLaunchFailure = null;
        // A crash or a dropped remote connection: the slots die with it; the next lease launches a new one.
        started.on('disconnected', () => {
          if (browser === started) browser = null;
          for (const slot of slots) if (slot.browser === started) slot.healthy = false;
        });
        return started;
      },
      (error: unknown) => {
        launching = null;
        lastLaunchFailure = {
          at: performance.now(),
          message: error instanceof Error ? error.message.split('\n')[0]! : String(error),
        };
        throw error;
      },
    );
    return launching;
  }

  async function createSlot(): Promise<Slot> {
    const owner = await getBrowser();
    const context = await owner.newContext({
      userAgent: options.userAgent,
      serviceWorkers: 'block',
      acceptDownloads: false,
      viewport: { width: 1280, height: 900 },
      // No locale here: each render sets its own (emulate() in browser-actions.ts), which one set here would forbid.
      ...(proxy ? { proxy: { server: proxy.url, bypass: '<-loopback>', ...proxyCredentials } } : {}),
    });
    const slot: Slot = {
      browser: owner,
      context,
      page: undefined as unknown as Page,
      cdp: null,
      lease: null,
      uses: 0,
      healthy: true,
    };
    await guardContext(context, options.policy, () => slot.lease?.load ?? null);
    await context.addInitScript(INIT_SCRIPT);
    // Popups opened by a page are closed at once; the guard covers them while they exist.
    context.on(
      'page',
      (page) =>
        void page
          .opener()
          .then((opener) => opener && page.close())
          .catch(() => undefined),
    );
    slot.page = watchPage(slot, await context.newPage());
    slot.cdp = await context.newCDPSession(slot.page).catch(() => null);
    slots.add(slot);
    return slot;
  }

  /** Counts the page's requests for its lease's quiet wait, and takes the slot out of use if the page crashes. */
  function watchPage(slot: Slot, page: Page): Page {
    const network = (delta: number) => () => {
      if (!slot.lease) return;
      slot.lease.network.inflight = Math.max(0, slot.lease.network.inflight + delta);
      slot.lease.network.lastActivity = performance.now();
    };
    page.on('request', network(1));
    page.on('requestfinished', network(-1));
    page.on('requestfailed', network(-1));
    page.on('crash', () => (slot.healthy = false));
    return page;
  }

  async function dispose(slot: Slot): Promise<void> {
    slots.delete(slot);
    // A context of a browser that is gone has nothing left to close (and Playwright may never answer the call).
    if (slot.browser.isConnected()) await bounded(slot.context.close());
  }

  /** Wipes what one caller's page left behind, so the next caller starts clean; false if the slot should go. */
  async function reset(slot: Slot, origins: Set<string>): Promise<boolean> {
    if (!slot.healthy || !slot.browser.isConnected() || slot.uses >= CONTEXT_MAX_USES) return false;
    const wipe = async () => {
      // A new page drops sessionStorage and stops the old page's timers; the context (and its warm caches) stays.
      const previous = slot.page;
      slot.page = watchPage(slot, await slot.context.newPage());
      await previous.close();
      const cdp = await slot.context.newCDPSession(slot.page);
      await slot.cdp?.detach().catch(() => undefined);
      slot.cdp = cdp;
      await slot.context.clearCookies();
      for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      return true;
    };
    return (await bounded(wipe())) === true;
  }

  function releaseCapacity(): void {
    const next = waiting.shift();
    if (next) next.resolve();
    else busy--;
  }

  async function acquireCapacity(signal?: AbortSignal): Promise<string | null> {
    if (busy < options.size) {
      busy++;
      return null;
    }
    if (waiting.length >= options.queueMax)
      return `busy: ${options.size} pages rendering and ${waiting.length} waiting`;
    return new Promise((resolve) => {
      const entry = {
        resolve: () => {
          cleanup();
          resolve(null);
        },
        reject: (reason: string) => {
          cleanup();
          resolve(reason);
        },
      };
      const timer = setTimeout(
        () => entry.reject(`no browser page became free within ${options.acquireTimeoutMs} ms`),
        options.acquireTimeoutMs,
      );
      const onAbort = () => entry.reject('cancelled while waiting for a browser page');
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = waiting.indexOf(entry);
        if (i >= 0) waiting.splice(i, 1);
      };
      waiting.push(entry);
    });
  }

  return {
    unavailable,
    stats: () => ({ launches, contexts: slots.size, busy, queued: waiting.length }),

    async withPage(use, signal) {
      const why = unavailable();
      if (why) return { ok: false, reason: why };
      const refused = await acquireCapacity(signal);
      if (refused) return { ok: false, reason: refused };
      let slot: Slot | undefined;
      try {
        while ((slot = free.pop()) && (!slot.healthy || !slot.browser.isConnected())) await dispose(slot);
        slot ??= await createSlot();
      } catch (error) {
        releaseCapacity();
        return {
          ok: false,
          reason:
            `the browser failed to start: ` +
            `${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        };
      }
      const lease: Lease = {
        page: slot.page,
        cdp: slot.cdp,
        load: createLoadGuard(options.policy),
        network: { inflight: 0, lastActivity: performance.now() },
        egressFailure: (url) => proxy?.failureFor(url) ?? null,
      };
      slot.lease = lease;
      slot.uses++;
      try {
        return { ok: true, value: await use(lease) };
      } catch (error) {
        // A page or browser that died under the caller is "unavailable" for it; anything else is a bug and surfaces.
        if (!slot.healthy || !slot.browser.isConnected() || slot.page.isClosed()) {
          slot.healthy = false;
          return { ok: false, reason: 'the browser crashed while rendering the page' };
        }
        throw error;
      } finally {
        slot.lease = null;
        // The caller has its result: the wipe runs after, and the slot's capacity is free only once it is clean.
        const current = slot;
        const recycle = (async () => {
          if (!closed && (await reset(current, lease.load.origins))) free.push(current);
          else await dispose(current);
          releaseCapacity();
        })();
        recycling.add(recycle);
        void recycle.finally(() => recycling.delete(recycle));
      }
    },

    async close() {
      closed = true;
      for (const entry of [...waiting]) entry.reject('shutting down');
      await bounded(Promise.allSettled([...recycling]));
      await Promise.allSettled([...slots].map(dispose));
      const starting = launching;
      if (starting) await bounded(starting.then((b) => b.close()));
      if (browser) await bounded(browser.close());
      browser = null;
      await proxy?.close();
      proxy = null;
    },
  };
}
