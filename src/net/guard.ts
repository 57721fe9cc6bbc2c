// SSRF guard: which URLs may be requested and a DNS lookup for net.connect that refuses blocked addresses.
// The lookup hands the socket the very addresses it checked, so a second DNS answer (rebinding) never gets used.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { FetchFailure } from '../errors.js';
import { isBlockedAddress } from './blocked-ranges.js';

/** Thrown into net.connect when a host is or resolves to a blocked address; the client maps it to `blocked_url`. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(readonly hostname: string) {
    super(`${hostname} is or resolves to a private or reserved address`);
    this.name = 'BlockedAddressError';
  }
}

/** Resolves a host name to all of its addresses; dns.lookup by default (the system resolver, /etc/hosts included). */
export type ResolveHost = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

export interface AddressPolicyOptions {
  allowPrivateNetworks: boolean;
  isBlocked?: (ip: string) => boolean;
  resolveHost?: ResolveHost;
}

export interface AddressPolicy {
  /** Whether a socket may connect to this IP address. */
  allows(ip: string): boolean;
  /** Scheme and IP-literal check done before any socket exists; null when the URL may be requested. */
  checkUrl(url: URL): FetchFailure | null;
  /** For net.connect / tls.connect `lookup`: resolves, refuses if ANY address is blocked, returns what it checked. */
  lookup: LookupFunction;
}

const SCHEMES = new Set(['http:', 'https:']);

const resolveWithDns: ResolveHost = (hostname, options) => dns.promises.lookup(hostname, { ...options, all: true });

/**
 * The host of a URL as an address when it is an IP literal (WHATWG URL already turned 0x7f.1 and 2130706433 into dotted
 * form).
 */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? host : null;
}

/** The refusal callers see: it names the host, never which address it resolved to (that would leak internal DNS). */
export function blockedFailure(url: URL): FetchFailure {
  const verb = ipLiteralOf(url) === null ? 'resolves to' : 'is';
  return {
    code: 'blocked_url',
    detail: `${url.hostname} ${verb} a private or reserved address; only public internet addresses can be fetched`,
    retryable: false,
  };
}

export function createAddressPolicy(options: AddressPolicyOptions): AddressPolicy {
  const { allowPrivateNetworks, isBlocked = isBlockedAddress, resolveHost = resolveWithDns } = options;
  const allows = (ip: string) => allowPrivateNetworks || !isBlocked(ip);

  function checkUrl(url: URL): FetchFailure | null {
    // Other schemes stay refused even with private networks allowed: file:, ftp:, gopher: are never wanted.
    if (!SCHEMES.has(url.protocol)) {
      return {
        code: 'blocked_url',
        detail: `only http and https URLs can be fetched, not ${url.protocol}`,
        retryable: false,
        retryHint: 'the address (or a redirect) is not a web page: only http and https can be fetched',
      };
    }
    const ip = ipLiteralOf(url);
    return ip !== null && !allows(ip) ? blockedFailure(url) : null;
  }

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveHost(hostname, lookupOptions).then(
      (addresses) => {
        // Refuse on any blocked answer, not only the first: the socket may fall back to the others (happy eyeballs).
        const first = addresses[0];
        if (!first) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname }), '');
        } else if (addresses.some((a) => !allows(a.address))) {
          callback(new BlockedAddressError(hostname), '');
        } else if (lookupOptions.all) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  return { allows, checkUrl, lookup };
}

/** The URL check with the standard ranges: http/https only, IP literals outside the blocked ranges unless allowed. */
export function checkUrl(url: URL, allowPrivate: boolean): FetchFailure | null {
  return createAddressPolicy({ allowPrivateNetworks: allowPrivate }).checkUrl(url);
}
