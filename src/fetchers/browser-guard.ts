// The SSRF guard inside the browser: every request a page makes (document, subresource, redirect hop, fetch/XHR,
// iframe) passes a Playwright route that applies the same AddressPolicy as the HTTP client; WebSockets are refused
// outright and images, fonts and media are never loaded. Behind it, the egress proxy checks again at connect time.
import type { BrowserContext, Route } from 'playwright-core';
import type { FetchFailure } from '../errors.js';
import { failureFromError } from '../net/failures.js';
import { ipLiteralOf, type AddressPolicy } from '../net/guard.js';

/** Not needed for text, and the bulk of a page's bytes. */
export const BLOCKED_RESOURCE_TYPES: ReadonlySet<string> = new Set(['image', 'font', 'media']);

/** What one page load did at the guard: fresh per lease, so the host verdicts of one caller never serve another. */
export interface LoadGuard {
  /** URLs refused by the address policy. */
  readonly refused: string[];
  /** Origins the page touched, whose storage is cleared when the context goes back to the pool. */
  readonly origins: Set<string>;
  /** Whether a refusal names the setting that lifts it, as the policy's own do. */
  readonly nameSetting: boolean;
  /** The caller's headers (credentials), added to requests to this one origin only; set before the navigation. */
  originHeaders: { origin: string; headers: Record<string, string> } | null;
  hostAllowed(hostname: string): Promise<boolean>;
}

/** Resolves a host with the policy's own lookup: true only when every address it resolves to is allowed. */
export function resolvesToAllowed(policy: AddressPolicy, hostname: string): Promise<boolean> {
  return new Promise((resolve) => {
    policy.lookup(hostname, { all: true }, (error, addresses) => {
      resolve(!error && Array.isArray(addresses) && addresses.length > 0);
    });
  });
}

export function createLoadGuard(policy: AddressPolicy): LoadGuard {
  // One verdict per host per page load: a page with 80 requests to one CDN resolves it once.
  const verdicts = new Map<string, Promise<boolean>>();
  return {
    refused: [],
    origins: new Set(),
    nameSetting: policy.nameSetting,
    originHeaders: null,
    hostAllowed(hostname) {
      let verdict = verdicts.get(hostname);
      if (!verdict) {
        verdict = resolvesToAllowed(policy, hostname);
        verdicts.set(hostname, verdict);
      }
      return verdict;
    },
  };
}

/**
 * The target URL itself, before any browser or reader is asked to load it: the same check, and the same failure
 * (blocked_url, or upstream_unreachable for a name that does not resolve), as the HTTP client's.
 */
export async function checkTarget(policy: AddressPolicy, url: URL): Promise<FetchFailure | null> {
  const refused = policy.checkUrl(url);
  if (refused) return refused;
  if (ipLiteralOf(url) !== null) return null;
  const error = await new Promise<Error | null>((resolve) =>
    policy.lookup(url.hostname, { all: true }, (failure) => resolve(failure)),
  );
  return error ? failureFromError(error, url) : null;
}

/** Abort; let Chromium load it; or load it here with the caller's headers (its own origin). */
type Verdict = 'abort' | 'continue' | { headers: Record<string, string> };

/**
 * A request to the origin the caller's headers are for gets them. Chromium keeps a Cookie header set on an
 * intercepted request out, and carries the others over to the redirects it follows, so such a request is made here
 * (route.fetch, through the same egress proxy) without following redirects: a redirect goes back to the page, whose
 * next request comes through this route again, and another origin's gets nothing of the caller's.
 */
function credentialed(route: Route, url: URL, load: LoadGuard): Verdict {
  const given = load.originHeaders;
  if (!given || url.origin !== given.origin) return 'continue';
  return { headers: { ...route.request().headers(), ...given.headers } };
}

async function decide(route: Route, policy: AddressPolicy, load: LoadGuard): Promise<Verdict> {
  const request = route.request();
  if (BLOCKED_RESOURCE_TYPES.has(request.resourceType())) return 'abort';
  let url: URL;
  try {
    url = new URL(request.url());
  } catch {
    return 'abort';
  }
  // data: and blob: URLs never reach the network.
  if (url.protocol === 'data:' || url.protocol === 'blob:') return 'continue';
  if (policy.checkUrl(url) || (ipLiteralOf(url) === null && !(await load.hostAllowed(url.hostname)))) {
    load.refused.push(url.href);
    return 'abort';
  }
  load.origins.add(url.origin);
  return credentialed(route, url, load);
}

/**
 * Installs the guard on a context. `current()` returns the load now using the context (or null between leases, when
 * every request is refused). Redirects come back through the route as new requests, so each hop is checked.
 */
export async function guardContext(
  context: BrowserContext,
  policy: AddressPolicy,
  current: () => LoadGuard | null,
): Promise<void> {
  await context.route('**/*', async (route) => {
    const load = current();
    try {
      const verdict = load ? await decide(route, policy, load) : 'abort';
      if (verdict === 'abort') await route.abort('blockedbyclient');
      else if (verdict === 'continue') await route.continue();
      else await route.fulfill({ response: await route.fetch({ headers: verdict.headers, maxRedirects: 0 }) });
    } catch {
      // The page or context closed while deciding: nothing left to answer.
    }
  });
  // WebSockets are not needed to read a page and would be a channel the route cannot inspect frame by frame.
  await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'WebSockets are disabled' }));
}
