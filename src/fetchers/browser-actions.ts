// What a caller asks of a rendered page beyond loading it: the device and locale it is seen with, a wait for a
// selector or a time, the steps of `actions`, and screenshots. Each step is bounded by the render's deadline; a step
// that fails is a failure naming it, never a page read half-way.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CDPSession } from 'playwright-core';
import type { FetchFailure } from '../errors.js';
import type { Lease } from './browser-pool.js';
import type { PageAction, PageOptions, ScreenshotRequest, Shot } from './types.js';

/** The most one step may take (a click that waits for its element, a selector wait inside actions). */
export const STEP_TIMEOUT_MS = 10_000;
/** A screenshot taller than this is cut there: Chromium's own limit for one capture is 16,384 pixels. */
const MAX_SHOT_HEIGHT = 16_384;
const JPEG_QUALITY = 80;

/** A phone: an iPhone 13's screen, and Chrome for Android's user agent (mobile sites key on "Mobile"). */
const MOBILE = {
  width: 390,
  height: 844,
  deviceScaleFactor: 3,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile ' +
    'Safari/537.36 Fetchdown/1.0',
};

/** Milliseconds left before `deadline` (a performance.now() time). */
export const left = (deadline: number) => Math.max(0, Math.floor(deadline - performance.now()));

/** Leases whose page is seen as a phone (emulate): their screenshots are taken as the phone sees it. */
const phones = new WeakSet<Lease>();

/** The locale of a render whose caller named none. */
const DEFAULT_LOCALE = 'en-US';

/**
 * Sets the device, user agent and locale for this lease's page (its DevTools session ends with the page). The locale
 * is set here for every render, the default one too: Chromium lets only the session that set a locale override
 * change it, so one set by the context (Playwright's own session) would refuse every locale a caller asks for.
 */
export async function emulate(lease: Lease, page: PageOptions, userAgent?: string): Promise<void> {
  const { cdp } = lease;
  if (!cdp) return;
  if (page.mobile) {
    phones.add(lease);
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: MOBILE.width,
      height: MOBILE.height,
      deviceScaleFactor: MOBILE.deviceScaleFactor,
      mobile: true,
    });
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  }
  const locale = page.locale ?? DEFAULT_LOCALE;
  await cdp.send('Emulation.setLocaleOverride', { locale: locale.replace(/-/g, '_') });
  await cdp.send('Network.setUserAgentOverride', {
    userAgent: page.mobile ? MOBILE.userAgent : (userAgent ?? (await lease.page.evaluate(() => navigator.userAgent))),
    acceptLanguage: locale,
    ...(page.mobile ? { platform: 'Android' } : {}),
  });
}

/** The failure of a wait that ran out: it names what was awaited. */
function waitFailure(what: string, ms: number): FetchFailure {
  return { code: 'upstream_timeout', detail: `${what} did not appear within ${ms} ms`, retryable: true };
}

/** `wait_for`: a selector present in the page, or a pause; null once done. */
export async function waitFor(lease: Lease, target: string | number, deadline: number): Promise<FetchFailure | null> {
  if (typeof target === 'number') {
    await sleep(Math.min(target, left(deadline)));
    return null;
  }
  const ms = left(deadline);
  try {
    await lease.page.waitForSelector(target, { state: 'attached', timeout: Math.max(1, ms) });
    return null;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return waitFailure(JSON.stringify(target), ms);
    throw error;
  }
}

/**
 * A phone's screenshot, through the lease's own DevTools session that set the phone's screen: Playwright's
 * page.screenshot() knows only the context's desktop viewport, and lays the page out at 1280 px again for it. In
 * device pixels (the phone's pixel ratio), the whole page cut at MAX_SHOT_HEIGHT of them.
 */
async function phoneScreenshot(cdp: CDPSession, request: ScreenshotRequest, step: number | null): Promise<Shot> {
  const format = { format: request.format, ...(request.format === 'jpeg' ? { quality: JPEG_QUALITY } : {}) };
  let clip;
  if (request.fullPage) {
    const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
    const height = Math.min(Math.ceil(cssContentSize.height), Math.floor(MAX_SHOT_HEIGHT / MOBILE.deviceScaleFactor));
    clip = { x: 0, y: 0, width: MOBILE.width, height, scale: 1 };
  }
  const { data } = await cdp.send(
    'Page.captureScreenshot',
    clip ? { ...format, captureBeyondViewport: true, clip } : format,
  );
  return { step, format: request.format, bytes: Buffer.from(data, 'base64') };
}

export async function screenshot(lease: Lease, request: ScreenshotRequest, step: number | null): Promise<Shot> {
  const { page, cdp } = lease;
  if (cdp && phones.has(lease)) return phoneScreenshot(cdp, request, step);
  const options = { type: request.format, ...(request.format === 'jpeg' ? { quality: JPEG_QUALITY } : {}) };
  if (!request.fullPage) return { step, format: request.format, bytes: await page.screenshot(options) };
  const size = await page.evaluate(() => ({
    width: document.documentElement.clientWidth,
    height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
  }));
  const clip = { x: 0, y: 0, width: size.width, height: Math.min(size.height, MAX_SHOT_HEIGHT) };
  return { step, format: request.format, bytes: await page.screenshot({ ...options, fullPage: true, clip }) };
}

function describe(action: PageAction): string {
  if ('selector' in action && action.selector) return `${action.type} ${JSON.stringify(action.selector)}`;
  if (action.type === 'press') return `press ${JSON.stringify(action.key)}`;
  return action.type;
}

async function scroll(lease: Lease, action: Extract<PageAction, { type: 'scroll' }>, settle: () => Promise<void>) {
  const sign = action.direction === 'up' ? -1 : 1;
  for (let i = 0; i < (action.times ?? 1); i++) {
    await lease.page.evaluate(
      ({ sign, amount, toEnd }) => {
        const root = document.scrollingElement ?? document.documentElement;
        if (toEnd) window.scrollTo(0, sign > 0 ? root.scrollHeight : 0);
        else window.scrollBy(0, sign * (amount ?? window.innerHeight));
      },
      { sign, amount: action.amount ?? null, toEnd: action.to_end ?? false },
    );
    await settle();
  }
}

async function runStep(
  lease: Lease,
  action: PageAction,
  index: number,
  deadline: number,
  settle: () => Promise<void>,
  shots: Shot[],
): Promise<FetchFailure | null> {
  const { page } = lease;
  const timeout = Math.max(1, Math.min(STEP_TIMEOUT_MS, left(deadline)));
  switch (action.type) {
    case 'wait':
      return waitFor(lease, action.selector ?? action.milliseconds ?? 0, performance.now() + timeout);
    case 'click':
      await page.locator(action.selector).first().click({ timeout });
      break;
    case 'type':
      await page.locator(action.selector).first().fill(action.text, { timeout });
      break;
    case 'press':
      await page.keyboard.press(action.key);
      break;
    case 'scroll':
      await scroll(lease, action, settle);
      return null;
    case 'screenshot':
      shots.push(
        await screenshot(lease, { fullPage: action.full_page ?? false, format: action.format ?? 'png' }, index),
      );
      return null;
  }
  await settle();
  return null;
}

/** Why a step failed, in the caller's terms: Playwright's first line, without its call log. */
function stepFailure(error: unknown): FetchFailure {
  const message = error instanceof Error ? error.message.split('\n')[0]!.replace(/^[\w.]+: /, '') : String(error);
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  return {
    code: 'action_failed',
    detail: timedOut ? 'no element matched in time, or it never became visible and enabled' : message,
    retryable: false,
  };
}

/**
 * Runs the steps in order, letting the page settle after each (`settle`: the render's quiet wait). Returns the
 * screenshots taken, or the failure of the first step that failed (a navigation the guard refused surfaces through
 * `navigated`, the render's document watch).
 */
export async function runActions(
  lease: Lease,
  actions: readonly PageAction[],
  deadline: number,
  settle: () => Promise<void>,
  navigated: () => FetchFailure | null,
): Promise<{ ok: true; shots: Shot[] } | { ok: false; failure: FetchFailure }> {
  const shots: Shot[] = [];
  for (const [index, action] of actions.entries()) {
    let failure: FetchFailure | null;
    try {
      failure = await runStep(lease, action, index, deadline, settle, shots);
    } catch (error) {
      if (lease.page.isClosed()) throw error; // the render's deadline closed the page: its own failure
      failure = navigated() ?? stepFailure(error);
    }
    failure ??= navigated();
    if (failure) {
      const detail = `actions[${index}] (${describe(action)}): ${failure.detail}`;
      return { ok: false, failure: { ...failure, detail, extra: { ...failure.extra, action_index: index } } };
    }
  }
  return { ok: true, shots };
}
