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
  if (error instanceof BlockedAddressError) return blockedFailure(url);
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
