// What Chromium shows when a document could not be loaded is never content: a failed navigation, the egress proxy's
// own answer and Chromium's error page all become the failure the HTTP client would report for the same URL.
import type { Request, Response } from 'playwright-core';
import type { FetchFailure } from '../errors.js';
import { failureFromChromium } from '../net/failures.js';
import { blockedFailure } from '../net/guard.js';
import type { Lease } from './browser-pool.js';
import { FAILURE_HEADER } from './egress-proxy.js';

/** Where Chromium puts the error page it shows for a navigation that failed. */
const ERROR_PAGE = 'chrome-error:';

/** Chromium's error name in a Playwright message or request failure, without `net::` (`ERR_CONNECTION_REFUSED`). */
const netErrorOf = (message: string) => /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1] ?? '';

/** A document request that failed inside the browser (`netError` without `net::`), in the HTTP client's words. */
function documentFailure(lease: Lease, url: URL, netError: string): FetchFailure {
  // The guard's route aborts documents only when the address policy refuses them.
  if (netError === 'ERR_BLOCKED_BY_CLIENT')
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? blockedFailure(url, lease.load.nameSetting)
      : failureFromChromium('ERR_DISALLOWED_URL_SCHEME', url);
  // Every connection goes through the egress proxy: when it failed, it knows why (Chromium only says "tunnel failed").
  const viaProxy = netError === 'ERR_TUNNEL_CONNECTION_FAILED' || netError === 'ERR_PROXY_CONNECTION_FAILED';
  return (viaProxy ? lease.egressFailure(url) : null) ?? failureFromChromium(netError, url);
}

/** The egress proxy's own answer (it could not reach the site) rather than the site's; only plain http passes it. */
function proxyAnswerFailure(lease: Lease, response: Response): FetchFailure | null {
  const url = new URL(response.url());
  if (url.protocol !== 'http:' || !response.headers()[FAILURE_HEADER]) return null;
  return lease.egressFailure(url) ?? failureFromChromium('ERR_TUNNEL_CONNECTION_FAILED', url);
}

/** Follows the main frame's documents during one render. */
export interface DocumentWatch {
  /** Why the document now in the main frame is not the page (a failed navigation, an error page), or null. */
  failure(): FetchFailure | null;
  stop(): void;
}

export function watchDocument(lease: Lease): DocumentWatch {
  const { page } = lease;
  let last: FetchFailure | null = null;
  const isDocument = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === page.mainFrame();
    } catch {
      return false; // a request without a frame (a worker's) is no document
    }
  };
  const onFailed = (request: Request) => {
    const netError = netErrorOf(request.failure()?.errorText ?? '');
    // ERR_ABORTED: a navigation replaced by another one (or stopped); what follows decides.
    if (isDocument(request) && netError !== 'ERR_ABORTED')
      last = documentFailure(lease, new URL(request.url()), netError);
  };
  const onResponse = (response: Response) => {
    if (isDocument(response.request())) last = proxyAnswerFailure(lease, response);
  };
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  return {
    failure() {
      if (last || !page.url().startsWith(ERROR_PAGE)) return last;
      return {
        code: 'upstream_unreachable',
        detail: 'the browser could not load the page and showed its own error page',
        retryable: true,
      };
    },
    stop() {
      page.off('requestfailed', onFailed);
      page.off('response', onResponse);
    },
  };
}

/** page.goto's error → the failure a caller understands. */
export function navigationFailure(
  error: unknown,
  url: URL,
  lease: Lease,
  watch: DocumentWatch,
  timeoutMs: number,
): FetchFailure {
  const message = error instanceof Error ? error.message : String(error);
  // Playwright's TimeoutError by name: importing playwright-core for the class would load it (~0.6 s of CPU) in every
  // process that builds the fetchers, not only once a browser launches.
  if (error instanceof Error && error.name === 'TimeoutError')
    return {
      code: 'upstream_timeout',
      detail: `${url.host} did not load within ${timeoutMs} ms in the browser`,
      retryable: true,
    };
  if (/Download is starting/i.test(message))
    return {
      code: 'unsupported_content',
      detail: `${url.host} answered a file download, not a page; try fetcher "pdf" for PDFs`,
      retryable: false,
    };
  const netError = netErrorOf(message);
  // A redirect hop that failed has its own URL: the watch saw it, or the guard wrote down what it refused.
  const seen = watch.failure();
  if (seen) return seen;
  const refused = lease.load.refused.at(-1);
  return documentFailure(lease, netError === 'ERR_BLOCKED_BY_CLIENT' && refused ? new URL(refused) : url, netError);
}
