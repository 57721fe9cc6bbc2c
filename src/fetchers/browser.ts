// The browser fetcher: loads the page in a pooled headless Chromium, waits until the DOM and the network are quiet
// (capped by BROWSER_WAIT_MS), runs what the caller asked of the page (browser-actions.ts), then extracts the rendered
// HTML with the same extractor as the html fetcher. A render that did not finish is a retryable failure, never a
// skeleton sold as the page.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'playwright-core';
import type { FetchFailure } from '../errors.js';
import type { AddressPolicy } from '../net/guard.js';
import { SHELL_MAX_TEXT_CHARS, visibleTextChars } from './app-shell.js';
import { emulate, left, runActions, screenshot, waitFor } from './browser-actions.js';
import { navigationFailure, watchDocument, type DocumentWatch } from './browser-failures.js';
import { checkTarget } from './browser-guard.js';
import type { BrowserPool, Lease } from './browser-pool.js';
import { detectChallenge } from './challenge.js';
import { conversionTasks, type CountedContent } from './conversion-tasks.js';
import { emptyFailure, isEmptyContent } from './html.js';
import { failed, type Fetcher, type FetchOutcome, type PageOptions, type Shot } from './types.js';

/**
 * The page counts as rendered after this long with no DOM mutation and no request in flight: the window of
 * Puppeteer's `networkidle0`, long enough for a client-side app to render what its data requests brought.
 */
export const QUIET_MS = 500;
const POLL_MS = 100;
/** Time past the navigation deadline and the quiet wait for reading the DOM out, before the page is given up on. */
const RENDER_GRACE_MS = 5000;
/** Added to a render's deadline when the caller waits or acts and sets no `timeout` of its own. */
export const INTERACTION_BUDGET_MS = 30_000;
/** The most the page may take to settle after one action (a click that loads more, a scroll that fetches a page). */
const SETTLE_MS = 3000;

export interface BrowserFetcherOptions {
  pool: BrowserPool;
  policy: AddressPolicy;
  /** Cap on the quiet wait after DOMContentLoaded. */
  waitMs: number;
  /** Deadline for the navigation itself. */
  timeoutMs: number;
  maxBytes: number;
  /** The desktop user agent (the pool's; read from the page when left out); a mobile render sends a phone's. */
  userAgent?: string;
  /**
   * Where the rendered HTML is extracted, and compressed to be kept (conversions.ts: an extraction thread); in this
   * thread when left out.
   */
  extract?: (
    html: string,
    url: string,
    keep: boolean,
  ) => Promise<{ ok: true; content: CountedContent } | { ok: false; failure: FetchFailure }>;
}

const extractHere: NonNullable<BrowserFetcherOptions['extract']> = async (html, url, keep) => ({
  ok: true,
  content: conversionTasks.extract({ html, url, keep }),
});

const MUTATION_KEY = 'fetchdown.lastMutation';

/** Waits for QUIET_MS of no mutations and no requests, or until `capMs`; true when the page went quiet. */
async function waitForQuiet(lease: Lease, capMs: number): Promise<boolean> {
  const end = performance.now() + capMs;
  while (performance.now() < end) {
    const sinceMutation = await lease.page
      .evaluate(
        (key) => performance.now() - ((window as unknown as Record<symbol, number>)[Symbol.for(key)] ?? 0),
        MUTATION_KEY,
      )
      .catch(() => 0); // a navigation replaced the document: not quiet yet
    const network = lease.network;
    if (sinceMutation >= QUIET_MS && network.inflight === 0 && performance.now() - network.lastActivity >= QUIET_MS)
      return true;
    await sleep(POLL_MS);
  }
  return false;
}

function redirectsOf(response: Response): number {
  let count = 0;
  for (let request = response.request().redirectedFrom(); request; request = request.redirectedFrom()) count++;
  return count;
}

/** The document as it is now; once more after a moment if a client-side navigation was replacing it. */
async function readHtml(lease: Lease): Promise<string> {
  return lease.page.content().catch(async () => {
    await sleep(POLL_MS);
    return lease.page.content();
  });
}

/** One render: what it may use, and by when its waits must end (a performance.now() time). */
interface RenderJob {
  url: URL;
  request: PageOptions;
  deadline: number;
}

async function render(
  lease: Lease,
  job: RenderJob,
  options: BrowserFetcherOptions,
  watch: DocumentWatch,
): Promise<FetchOutcome> {
  const { page } = lease;
  const { url, request, deadline } = job;
  if (request.headers) lease.load.originHeaders = { origin: url.origin, headers: request.headers };
  await emulate(lease, request, options.userAgent);
  let response: Response | null;
  const navigationMs = Math.max(1, Math.min(options.timeoutMs, left(deadline)));
  try {
    response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: navigationMs });
  } catch (error) {
    return failed(navigationFailure(error, url, lease, watch, navigationMs));
  }
  const status = response?.status() ?? 200;
  const headers: Record<string, string> = (await response?.allHeaders().catch(() => ({}))) ?? {};
  const notLoaded = watch.failure();
  if (notLoaded) return failed(notLoaded);
  if (status >= 400) {
    const challenge = detectChallenge({ status, headers, html: await readHtml(lease) });
    if (challenge)
      return failed({
        code: 'blocked_by_site',
        detail: `${url.host} answered the browser with a bot challenge (${challenge})`,
        retryable: true,
      });
    return failed({
      code: 'upstream_status',
      detail: `${url.host} answered ${status}`,
      retryable: status >= 500 || status === 429,
      upstreamStatus: status,
    });
  }
  if (request.waitFor !== undefined) {
    const notThere = await waitFor(lease, request.waitFor, deadline);
    if (notThere) return failed(notThere);
  }
  let shots: Shot[] = [];
  if (request.actions?.length) {
    await waitForQuiet(lease, Math.min(options.waitMs, left(deadline)));
    const settle = async () => {
      // What a step set off (a click's fetch, perhaps a moment later) may not have reached the network yet: the quiet
      // window starts at the step, not at the page's last request before it.
      lease.network.lastActivity = performance.now();
      await waitForQuiet(lease, Math.min(SETTLE_MS, left(deadline)));
    };
    const acted = await runActions(lease, request.actions, deadline, settle, () => watch.failure());
    if (!acted.ok) return failed(acted.failure);
    shots = acted.shots;
  }
  // Quiet is a guess: a busy machine can delay the script that renders past the quiet window. While the page shows
  // no text and the cap allows, wait for another quiet window.
  const waitEnd = Math.min(performance.now() + options.waitMs, deadline);
  const extract = options.extract ?? extractHere;
  let html: string;
  let content: CountedContent;
  let quiet: boolean;
  for (;;) {
    quiet = await waitForQuiet(lease, Math.max(0, waitEnd - performance.now()));
    html = await readHtml(lease);
    const extracted = await extract(html, page.url(), true);
    if (!extracted.ok) return failed(extracted.failure);
    content = extracted.content;
    if (!isEmptyContent(content) || performance.now() >= waitEnd) break;
    await sleep(POLL_MS);
  }
  // The page may have navigated on by script or meta refresh, to somewhere that failed: that is not the page either.
  const navigatedAway = watch.failure();
  if (navigatedAway) return failed(navigatedAway);
  const finalUrl = page.url();
  const challenge = detectChallenge({ status, headers, html });
  if (challenge)
    return failed({
      code: 'blocked_by_site',
      detail: `${url.host} answered the browser with a bot challenge (${challenge})`,
      retryable: true,
    });
  // Still busy at the end of the wait, and showing no more text than a shell does: the render did not finish (a
  // starved machine, a slow API). Retryable, and not the page: a skeleton is never sold as content. A selector the
  // caller waited for says the content is there.
  if (!quiet && typeof request.waitFor !== 'string' && visibleTextChars(html) < SHELL_MAX_TEXT_CHARS)
    return failed({
      code: 'upstream_timeout',
      detail: `${url.host} did not finish rendering within ${options.waitMs} ms (the page was still loading)`,
      retryable: true,
    });
  if (request.screenshot) shots.push(await screenshot(lease, request.screenshot, null));
  const truncated = Buffer.byteLength(html) > options.maxBytes;
  if (truncated) {
    html = Buffer.from(html).subarray(0, options.maxBytes).toString('utf8');
    const extracted = await extract(html, finalUrl, true);
    if (!extracted.ok) return failed(extracted.failure);
    content = extracted.content;
  }
  if (isEmptyContent(content)) return failed(emptyFailure(finalUrl, 'has no readable text even after rendering'));
  return {
    ok: true,
    page: {
      url: finalUrl,
      statusCode: status,
      contentType: headers['content-type'] ?? 'text/html',
      title: content.title,
      description: content.description,
      language: content.language ?? headers['content-language']?.split(',')[0]?.trim() ?? null,
      ...content.details,
      markdown: content.markdown,
      text: content.text,
      tokens: content.tokens,
      redirects: response ? redirectsOf(response) : 0,
      bytes: Buffer.byteLength(html),
      bodyTruncated: truncated,
      htmlBrotli: content.htmlBrotli,
      ...(shots.length > 0 ? { shots } : {}),
    },
  };
}

/**
 * render() under a hard deadline: a page that blocks its main thread (`while (true) {}`) would otherwise hold a
 * Playwright call, and the pool's slot, forever. At the deadline the page is closed, which fails every pending call.
 */
async function renderWithin(
  lease: Lease,
  url: URL,
  request: PageOptions,
  options: BrowserFetcherOptions,
): Promise<FetchOutcome> {
  const interactive = request.waitFor !== undefined || (request.actions?.length ?? 0) > 0;
  const budget =
    request.timeoutMs ??
    options.timeoutMs + options.waitMs + RENDER_GRACE_MS + (interactive ? INTERACTION_BUDGET_MS : 0);
  // The waits end early enough to leave time for reading the page out before the hard deadline.
  const deadline = performance.now() + budget - Math.min(RENDER_GRACE_MS, budget / 4);
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void lease.page.close().catch(() => undefined);
  }, budget);
  const watch = watchDocument(lease);
  try {
    return await render(lease, { url, request, deadline }, options, watch);
  } catch (error) {
    if (expired)
      return failed({
        code: 'upstream_timeout',
        detail: `${url.host} did not finish rendering within ${budget} ms`,
        retryable: true,
      });
    throw error;
  } finally {
    clearTimeout(timer);
    watch.stop();
  }
}

export function createBrowserFetcher(options: BrowserFetcherOptions): Fetcher {
  return {
    name: 'browser',
    unavailable: () => options.pool.unavailable(),
    async fetch(url, fetchOptions = {}) {
      const refused = await checkTarget(options.policy, url);
      if (refused) return failed(refused);
      const request = fetchOptions.page ?? {};
      const leased = await options.pool.withPage(
        (lease) => renderWithin(lease, url, request, options),
        fetchOptions.signal,
      );
      if (!leased.ok)
        return failed({ code: 'fetcher_unavailable', detail: `browser: ${leased.reason}`, retryable: true });
      return leased.value;
    },
  };
}
