// The only way Fetchdown talks to the internet: one undici Agent whose sockets reach only allowed addresses,
// redirects followed by hand so every hop is re-checked, bounded decompression, failures returned as values.
import type { Dispatcher } from 'undici';
import type { FetchFailure } from '../errors.js';
import { failureFromError } from './failures.js';
import { createAddressPolicy, ipLiteralOf, type ResolveHost } from './guard.js';
import { createGuardedAgent } from './guarded-agent.js';
import { parseEncodings, readBody, type ReadBody } from './read-body.js';
import { retryResetOnce } from './reset-retry.js';

export interface SafeClientOptions {
  allowPrivateNetworks: boolean;
  /** Whether refusals name the setting that lifts them (guard.ts). */
  nameSetting?: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  isBlocked?: (ip: string) => boolean;
  resolveHost?: ResolveHost;
  maxConnectionsPerOrigin?: number;
}

export interface HttpResponse {
  url: URL; // final URL, after redirects
  status: number;
  // lower-case names, repeated headers joined with ", "; as sent (content-length is the encoded size)
  headers: Record<string, string>;
  body: Buffer; // decoded, at most maxBytes
  bodyTruncated: boolean;
  redirects: number;
  bytes: number; // decoded bytes returned
  wireBytes: number; // body bytes read as sent (encoded)
}

export type HttpOutcome = { ok: true; response: HttpResponse } | { ok: false; failure: FetchFailure };

export interface RequestOptions {
  /** POST (a webhook delivery) sends `body` and follows no redirect: its answer is the receiver's. */
  method?: 'GET' | 'HEAD' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** A caller's own headers (credentials): sent until a redirect leaves the requested origin, then never again. */
  originHeaders?: Record<string, string>;
  signal?: AbortSignal;
  maxBytes?: number;
  /** The most body bytes read as sent, before decoding (the default: no limit but maxBytes decoded). */
  maxWireBytes?: number;
}

export interface SafeClient {
  request(url: URL, opts?: RequestOptions): Promise<HttpOutcome>;
  /** Null when the guard lets `url` be requested now (its scheme, and every address its name has); else why not. */
  check(url: URL): Promise<FetchFailure | null>;
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Sent to the origin the caller named, never to another one a redirect points at (as browsers and undici do).
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function joinHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function lowerCaseNames(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * Userinfo (`user:pass@`) in a URL is accepted but never sent: requests go to `origin + path`, and credentials
 * typed into a URL for an agent should not travel to a site (nor into logs or cache keys).
 */
export function createSafeClient(opts: SafeClientOptions): SafeClient {
  const policy = createAddressPolicy({
    allowPrivateNetworks: opts.allowPrivateNetworks,
    nameSetting: opts.nameSetting,
    isBlocked: opts.isBlocked,
    resolveHost: opts.resolveHost,
  });
  const pooled = createGuardedAgent(policy, opts);
  // A reused connection the site closed as we sent on it is retried once on a new one (see reset-retry.ts).
  const fresh = createGuardedAgent(policy, { ...opts, keepAlive: false });
  const agent = pooled.compose(retryResetOnce(fresh));

  async function request(url: URL, options: RequestOptions = {}): Promise<HttpOutcome> {
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const maxBytes = options.maxBytes ?? opts.maxBytes;
    // GET and HEAD keep their method through every redirect (303 included); a POST follows none.
    const method = options.method ?? 'GET';
    let headers: Record<string, string> = {
      'user-agent': opts.userAgent,
      'accept-encoding': 'gzip, deflate, br',
      ...lowerCaseNames(options.headers),
      ...lowerCaseNames(options.originHeaders),
    };
    let current = url;
    try {
      for (let redirects = 0; ; redirects++) {
        const refused = policy.checkUrl(current);
        if (refused) return { ok: false, failure: refused };
        const response = await agent.request({
          origin: current.origin,
          path: current.pathname + current.search,
          method,
          headers,
          signal,
          body: options.body,
        });
        const location = response.headers.location;
        if (method !== 'POST' && REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
          await response.body.dump();
          if (redirects === opts.maxRedirects) {
            return {
              ok: false,
              failure: {
                code: 'upstream_unreachable',
                detail: `too many redirects (${opts.maxRedirects}) from ${url.host}`,
                retryable: false,
                retryHint: 'the site redirects in a loop or too many times; try the address it finally serves',
              },
            };
          }
          const next = URL.canParse(location, current) ? new URL(location, current) : null;
          if (!next) {
            const detail = `${current.host} answered ${response.statusCode} with an invalid Location`;
            return {
              ok: false,
              failure: { code: 'upstream_status', detail, retryable: false, upstreamStatus: response.statusCode },
            };
          }
          if (next.origin !== current.origin) {
            const callers = Object.keys(lowerCaseNames(options.originHeaders));
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name) && !callers.includes(name)),
            );
          }
          current = next;
          continue;
        }
        const responseHeaders = joinHeaders(response.headers);
        let read: ReadBody = { body: Buffer.alloc(0), truncated: false, wireBytes: 0 };
        if (method === 'HEAD') await response.body.dump();
        else
          read = await readBody(
            response.body,
            parseEncodings(responseHeaders['content-encoding']),
            maxBytes,
            options.maxWireBytes,
          );
        const { body, truncated, wireBytes } = read;
        return {
          ok: true,
          response: {
            url: current,
            status: response.statusCode,
            headers: responseHeaders,
            body,
            bodyTruncated: truncated,
            redirects,
            bytes: body.length,
            wireBytes,
          },
        };
      }
    } catch (error) {
      if (deadline.aborted)
        return {
          ok: false,
          failure: {
            code: 'upstream_timeout',
            detail: `${current.host} did not answer within ${opts.timeoutMs} ms`,
            retryable: true,
          },
        };
      if (options.signal?.aborted)
        return {
          ok: false,
          failure: {
            code: 'upstream_timeout',
            detail: `the request to ${current.host} was cancelled`,
            retryable: true,
          },
        };
      return { ok: false, failure: failureFromError(error, current) };
    }
  }

  async function check(url: URL): Promise<FetchFailure | null> {
    const refused = policy.checkUrl(url);
    if (refused || ipLiteralOf(url) !== null) return refused;
    return new Promise((resolve) =>
      policy.lookup(url.hostname, { all: true }, (error) => resolve(error ? failureFromError(error, url) : null)),
    );
  }

  return { request, check, close: async () => void (await Promise.all([pooled.close(), fresh.close()])) };
}
