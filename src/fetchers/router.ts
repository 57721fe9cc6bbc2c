// Chooses the fetcher for a URL by interpreting routes.ts: robots.txt first, then one guarded GET whose response is
// classified cheapest-first (binary file, challenge, refusal, error, app shell, document), then that finding's chain of
// fetchers.
import type { FetchFailure } from '../errors.js';
import { decodeBody } from '../net/charset.js';
import type { AddressPolicy } from '../net/guard.js';
import type { HttpResponse, SafeClient } from '../net/safe-client.js';
import { detectAppShell, SHELL_MAX_TEXT_CHARS } from './app-shell.js';
import { checkTarget } from './browser-guard.js';
import { detectChallenge } from './challenge.js';
import { isHtmlType } from './content-type.js';
import { documentType } from './documents/sniff.js';
import { BINARY_DOCUMENTS } from './documents/types.js';
import { ACCEPT, statusFailure } from './html.js';
import type { RobotsPolicy } from './robots.js';
import { MOVES_ON, REFUSED_STATUSES, ROUTES, type Finding, type Route } from './routes.js';
import {
  failed,
  type Attempt,
  type DocumentRequest,
  type Fetcher,
  type FetcherChoice,
  type FetcherName,
  type FetchOutcome,
  type PageOptions,
  type ResponseConverter,
} from './types.js';

export interface Routed {
  fetcher: FetcherName;
  outcome: FetchOutcome;
  attempts: Attempt[];
}

export interface RouteOptions {
  signal?: AbortSignal;
  /** `auto` (default) decides by the table; a fetcher name forces that one, with no fallback. */
  fetcher?: FetcherChoice;
  /**
   * Asked before each fetcher of a chain runs, for callers who pay by the fetcher: false skips it as one the caller
   * cannot pay for, and the chain goes on to the next (a cheaper route) as when a fetcher cannot run.
   */
  pay?: (fetcher: FetcherName) => Promise<boolean>;
  /** What the caller asks of the page; one that needs a browser (needsBrowser) is routed to it alone. */
  page?: PageOptions;
  /** What the caller asks of a document (pdf's pages and page marks), handed to the converters. */
  document?: DocumentRequest;
}

/** Waits, actions, a phone's view and screenshots only a browser can give. */
export function needsBrowser(page: PageOptions | undefined): boolean {
  return !!page && (page.waitFor !== undefined || !!page.actions?.length || !!page.mobile || !!page.screenshot);
}

/** Fetchers that load the URL where its headers cannot be kept to the requested origin: never given the caller's. */
export const NO_CALLER_HEADERS: ReadonlySet<FetcherName> = new Set(['reader']);

export interface Router {
  fetch(url: URL, options?: RouteOptions): Promise<Routed>;
}

export interface RouterDeps {
  client: SafeClient;
  policy: AddressPolicy;
  fetchers: { html: ResponseConverter; pdf: ResponseConverter; browser: Fetcher; reader: Fetcher };
  /** Null when ROBOTS_TXT=ignore. */
  robots: RobotsPolicy | null;
}

const CONVERTERS = new Set<FetcherName>(['html', 'pdf']);
/**
 * Fetchers that load the URL where the guard cannot see (the reader provider, which follows redirects itself): they
 * are handed the URL where the guarded client's redirects ended, so a hop the guard refuses is never theirs to follow.
 */
const GIVEN_FINAL_URL = new Set<FetcherName>(['reader']);
const ROUTE_BY_FINDING = new Map<Finding, Route>(ROUTES.map((route) => [route.finding, route]));
/** Whether `text` holds at least `count` letters and digits, read no further than needed. */
function hasLetters(text: string, count: number): boolean {
  const letterOrDigit = /[\p{L}\p{N}]/gu;
  for (let seen = 0; letterOrDigit.test(text);) if (++seen >= count) return true;
  return false;
}
/** Bytes of the body decoded for the challenge markers (challenge.ts reads 64 Ki characters of it at most). */
const CHALLENGE_SCAN_BYTES = 64 * 1024;
/** Bytes decoded for the app-shell signals, which weigh a page's scripts against its text. */
const SHELL_SCAN_BYTES = 256 * 1024;

/** What the router learned from its GET. */
interface Probe {
  response: HttpResponse;
  finding: Finding;
  /** Why (the challenge kind, the app-shell reason), for fetch_info and error details. */
  why: string | null;
  /** The html fetcher's conversion, when classification already needed it. */
  htmlOutcome?: FetchOutcome;
}

export function createRouter(deps: RouterDeps): Router {
  const { client, policy, fetchers, robots } = deps;

  /** Classifies a response in ROUTES order; for forced html/pdf only the findings that are never content count. */
  async function classify(response: HttpResponse, forced: boolean): Promise<Probe> {
    const contentType = response.headers['content-type'];
    const type = documentType(contentType, response.body);
    const file = type !== null && (BINARY_DOCUMENTS.has(type) || type === 'image');
    if (!forced && file && response.status < 400) return { response, finding: 'file', why: null };
    // Challenge pages are small: their first 64 KiB hold every marker.
    const head = file ? '' : decodeBody(response.body.subarray(0, CHALLENGE_SCAN_BYTES), contentType);
    const challenge = detectChallenge({ status: response.status, headers: response.headers, html: head });
    if (challenge) return { response, finding: 'challenge', why: challenge };
    if (REFUSED_STATUSES.has(response.status)) return { response, finding: forced ? 'error' : 'refused', why: null };
    // A redirect that reached us was not followable (no or a bad Location): its body is a "moved" notice, not the page.
    if (response.status >= 300) return { response, finding: 'error', why: null };
    if (forced || !isHtmlType(contentType)) return { response, finding: 'document', why: null };
    // Most pages have plenty of text once extracted: only the few that do not are examined as possible shells.
    const htmlOutcome = await fetchers.html.convert(response);
    if (htmlOutcome.ok && hasLetters(htmlOutcome.page.text, SHELL_MAX_TEXT_CHARS))
      return { response, finding: 'document', why: null, htmlOutcome };
    const shell = detectAppShell(decodeBody(response.body.subarray(0, SHELL_SCAN_BYTES), contentType));
    return { response, finding: shell ? 'app_shell' : 'document', why: shell, htmlOutcome };
  }

  async function get(url: URL, accept: string, options: RouteOptions) {
    return client.request(url, { headers: { accept }, originHeaders: options.page?.headers, signal: options.signal });
  }

  /**
   * Runs a finding's chain; `attempts` may already hold the GET's own (html rejected as a challenge, a shell, a
   * refusal).
   */
  async function runChain(
    url: URL,
    route: Route,
    probe: Probe,
    attempts: Attempt[],
    options: RouteOptions,
  ): Promise<Routed> {
    const { signal, pay, page } = options;
    const failures: FetchFailure[] = [];
    for (const name of route.chain) {
      const fetcher = fetchers[name];
      const why =
        page?.headers && NO_CALLER_HEADERS.has(name)
          ? "the caller's headers and cookies are never sent to it"
          : fetcher.unavailable();
      if (why) {
        attempts.push({ fetcher: name, outcome: 'unavailable', ms: 0, detail: why });
        continue;
      }
      if (pay && !(await pay(name))) {
        attempts.push({
          fetcher: name,
          outcome: 'unaffordable',
          ms: 0,
          detail: 'the caller has too few credits left for this fetcher',
        });
        continue;
      }
      const started = performance.now();
      let outcome: FetchOutcome;
      if (name === 'html' && probe.htmlOutcome) outcome = probe.htmlOutcome;
      else if (CONVERTERS.has(name))
        outcome = await (fetcher as ResponseConverter).convert(probe.response, options.document);
      else outcome = await fetcher.fetch(GIVEN_FINAL_URL.has(name) ? probe.response.url : url, { signal, page });
      const ms = Math.round(performance.now() - started);
      attempts.push(
        outcome.ok
          ? { fetcher: name, outcome: 'ok', ms }
          : { fetcher: name, outcome: outcome.failure.code, ms, detail: outcome.failure.detail },
      );
      if (outcome.ok) return finish(name, outcome, attempts);
      failures.push(outcome.failure);
      if (!MOVES_ON.has(outcome.failure.code)) return finish(name, outcome, attempts);
    }
    return finish(route.chain[0] ?? 'html', otherwise(route, probe, failures, attempts), attempts);
  }

  function otherwise(route: Route, probe: Probe, failures: FetchFailure[], attempts: Attempt[]): FetchOutcome {
    const host = probe.response.url.host;
    const tried = attempts
      .filter((a) => a.outcome !== 'ok' && a.fetcher !== 'html')
      .map((a) => `${a.fetcher}: ${a.detail ?? a.outcome}`);
    const fallbacks = tried.length ? `; ${tried.join('; ')}` : '';
    switch (route.otherwise) {
      case 'site_status':
        return failed({
          ...statusFailure(probe.response),
          detail: `${statusFailure(probe.response).detail}${fallbacks}`,
        });
      case 'blocked_by_site':
        return failed({
          code: 'blocked_by_site',
          detail: `${host} answered with a bot challenge (${probe.why ?? 'challenge page'})${fallbacks}`,
          retryable: true,
        });
      case 'served_html': {
        if (probe.htmlOutcome?.ok) return probe.htmlOutcome;
        const real = failures.find((f) => f.code !== 'fetcher_unavailable');
        if (real) return failed({ ...real, detail: `${real.detail} (the served HTML is an app shell: ${probe.why})` });
        return failed({
          code: 'fetcher_unavailable',
          detail:
            `${host} serves an app shell (${probe.why}) that needs JavaScript rendering, and no ` +
            `renderer could run${fallbacks}`,
          retryable: true,
        });
      }
      case 'last_failure':
        return failed(
          failures.at(-1) ?? {
            code: 'fetcher_unavailable',
            detail: `no fetcher could run for ${host}${fallbacks}`,
            retryable: true,
          },
        );
    }
  }

  /**
   * Puts the attempts where callers see them: on the page (fetch_info) or in the error body, when more than one ran.
   */
  function finish(fetcher: FetcherName, outcome: FetchOutcome, attempts: Attempt[]): Routed {
    if (attempts.length <= 1) return { fetcher, outcome, attempts };
    if (outcome.ok) return { fetcher, outcome: { ok: true, page: { ...outcome.page, attempts } }, attempts };
    return {
      fetcher,
      outcome: failed({ ...outcome.failure, extra: { ...outcome.failure.extra, attempts } }),
      attempts,
    };
  }

  async function routeAuto(url: URL, options: RouteOptions): Promise<Routed> {
    const started = performance.now();
    const got = await get(url, ACCEPT, options);
    if (!got.ok) return { fetcher: 'html', outcome: got, attempts: [] };
    const probe = await classify(got.response, false);
    const route = ROUTE_BY_FINDING.get(probe.finding)!;
    const attempts: Attempt[] = [];
    // The GET itself counts as the html fetcher's attempt when its answer was not the content.
    if (probe.finding !== 'document' && probe.finding !== 'file') {
      const outcome = probe.finding === 'refused' || probe.finding === 'error' ? 'upstream_status' : probe.finding;
      attempts.push({
        fetcher: 'html',
        outcome,
        ms: Math.round(performance.now() - started),
        detail: probe.why ?? `${url.host} answered ${got.response.status}`,
      });
    }
    return runChain(url, route, probe, attempts, options);
  }

  async function routeForced(url: URL, name: FetcherName, options: RouteOptions): Promise<Routed> {
    const { signal, page } = options;
    const fetcher = fetchers[name];
    const why = fetcher.unavailable();
    if (why)
      return {
        fetcher: name,
        outcome: failed({ code: 'fetcher_unavailable', detail: `fetcher ${name} cannot run: ${why}`, retryable: true }),
        attempts: [],
      };
    if (GIVEN_FINAL_URL.has(name)) {
      // The guarded client follows the redirects first, checking every hop; the body is not needed.
      const landed = await client.request(url, { headers: { accept: ACCEPT }, signal, maxBytes: 0 });
      if (!landed.ok) return { fetcher: name, outcome: landed, attempts: [] };
      return { fetcher: name, outcome: await fetcher.fetch(landed.response.url, { signal }), attempts: [] };
    }
    if (!CONVERTERS.has(name)) {
      // The browser loads the URL elsewhere: the guard checks it here first, as the client would.
      const refused = await checkTarget(policy, url);
      if (refused) return { fetcher: name, outcome: failed(refused), attempts: [] };
      return { fetcher: name, outcome: await fetcher.fetch(url, { signal, page }), attempts: [] };
    }
    const got = await get(url, name === 'pdf' ? `application/pdf, ${ACCEPT}` : ACCEPT, options);
    if (!got.ok) return { fetcher: name, outcome: got, attempts: [] };
    const probe = await classify(got.response, true);
    if (probe.finding === 'challenge') {
      return {
        fetcher: name,
        outcome: failed({
          code: 'blocked_by_site',
          detail: `${url.host} answered with a bot challenge (${probe.why})`,
          retryable: true,
        }),
        attempts: [],
      };
    }
    if (probe.finding === 'error') return { fetcher: name, outcome: failed(statusFailure(got.response)), attempts: [] };
    const outcome = await (fetcher as ResponseConverter).convert(got.response, options.document);
    return { fetcher: name, outcome, attempts: [] };
  }

  return {
    async fetch(url, options = {}) {
      const choice = options.fetcher ?? 'auto';
      const refusal = robots ? await robots.check(url, options.signal) : null;
      if (refusal) return { fetcher: choice === 'auto' ? 'html' : choice, outcome: failed(refusal), attempts: [] };
      if (choice === 'auto' && needsBrowser(options.page)) return routeForced(url, 'browser', options);
      return choice === 'auto' ? routeAuto(url, options) : routeForced(url, choice, options);
    },
  };
}
