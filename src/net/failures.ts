// Turns what can go wrong on the wire (DNS, TCP, TLS, HTTP parsing) into FetchFailure values callers can act on.
import { errors } from 'undici';
import type { FetchFailure } from '../errors.js';
import { BlockedAddressError, blockedFailure } from './guard.js';
import { UnsupportedEncodingError } from './read-body.js';

const unreachable = (detail: string, retryable: boolean, retryHint?: string): FetchFailure => ({
  code: 'upstream_unreachable',
  detail,
  retryable,
  retryHint,
});
/** The host answered, so "check the URL" would mislead: its answer was what failed. */
const BAD_ANSWER_HINT = "retry later; the site's answer could not be read";

// Errors that come from how we called undici, not from the remote site: those are bugs and must surface.
const PROGRAMMER_ERRORS = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE']);

// "other side closed" (UND_ERR_SOCKET) and its kernel-level cousins.
const CLOSED_EARLY = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

function codeOf(error: unknown): string {
  let current = error;
  // undici sometimes wraps the socket error in one without a code; follow `cause` to find it.
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return '';
}

/** The failure for an error thrown while requesting `url`; rethrows errors that only a bug here can cause. */
export function failureFromError(error: unknown, url: URL): FetchFailure {
  const host = url.host;
  if (error instanceof BlockedAddressError) return blockedFailure(url, error.nameSetting);
  if (error instanceof UnsupportedEncodingError) {
    return {
      code: 'unsupported_content',
      detail: `${host} answered with unsupported content-encoding ${error.encoding}`,
      retryable: false,
    };
  }
  const code = codeOf(error);
  if (PROGRAMMER_ERRORS.has(code)) throw error;
  switch (code) {
    case 'ENOTFOUND':
      return unreachable(`${url.hostname} does not resolve (no such host)`, false);
    case 'EAI_AGAIN':
      return unreachable(`looking up ${url.hostname} failed temporarily`, true);
    case 'ECONNREFUSED':
      return unreachable(`${host} refused the connection`, true);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return unreachable(`${host} is not reachable from here`, true);
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'upstream_timeout', detail: `${host} did not answer in time`, retryable: true };
  }
  if (TLS_CODE.test(code))
    return unreachable(
      `TLS connection to ${host} failed (${code})`,
      false,
      "the site's TLS certificate or set-up is broken; it cannot be fetched securely",
    );
  if (error instanceof errors.HTTPParserError || code.startsWith('HPE_'))
    return unreachable(`${host} sent an invalid HTTP response`, false, BAD_ANSWER_HINT);
  if (CLOSED_EARLY.has(code))
    return unreachable(`${host} closed the connection before the answer was complete`, true, BAD_ANSWER_HINT);
  return unreachable(`the request to ${host} failed${code ? ` (${code})` : ''}`, true, BAD_ANSWER_HINT);
}

// Chromium's names (net::ERR_…) for the failures above, so a browser reports them in the HTTP client's words.
const CHROMIUM_CODES: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: 'ENOTFOUND',
  ERR_NAME_RESOLUTION_FAILED: 'EAI_AGAIN',
  ERR_CONNECTION_REFUSED: 'ECONNREFUSED',
  ERR_ADDRESS_UNREACHABLE: 'EHOSTUNREACH',
  ERR_INTERNET_DISCONNECTED: 'ENETUNREACH',
  ERR_CONNECTION_TIMED_OUT: 'UND_ERR_CONNECT_TIMEOUT',
  ERR_TIMED_OUT: 'UND_ERR_HEADERS_TIMEOUT',
  ERR_CONNECTION_RESET: 'ECONNRESET',
  ERR_CONNECTION_CLOSED: 'UND_ERR_SOCKET',
  ERR_EMPTY_RESPONSE: 'UND_ERR_SOCKET',
  ERR_CONNECTION_ABORTED: 'ECONNABORTED',
  ERR_INVALID_HTTP_RESPONSE: 'HPE_INVALID_CONSTANT',
};
/** What the client's URL check says of a redirect to file:, data: and the like. */
const NOT_WEB = new Set(['ERR_UNSAFE_REDIRECT', 'ERR_DISALLOWED_URL_SCHEME', 'ERR_UNKNOWN_URL_SCHEME']);

/** The failure for a Chromium network error (`ERR_CONNECTION_REFUSED`, no `net::`), as failureFromError names it. */
export function failureFromChromium(netError: string, url: URL): FetchFailure {
  if (NOT_WEB.has(netError)) {
    return {
      code: 'blocked_url',
      detail: `${url.host} leads to an address that is not http or https (${netError})`,
      retryable: false,
      retryHint: 'the address (or a redirect) is not a web page: only http and https can be fetched',
    };
  }
  // ERR_SSL_… already reads as a TLS code; ERR_CERT_X does once spelled CERT_X, as Node spells certificate errors.
  const code =
    CHROMIUM_CODES[netError] ??
    (netError.startsWith('ERR_CERT_')
      ? netError.slice('ERR_'.length)
      : netError.startsWith('ERR_SSL_')
        ? netError
        : '');
  if (code) return failureFromError(Object.assign(new Error(netError), { code }), url);
  return unreachable(
    `the browser could not load ${url.host}${netError ? ` (${netError})` : ''}`,
    true,
    BAD_ANSWER_HINT,
  );
}
