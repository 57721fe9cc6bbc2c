// SSRF guard: which URLs may be requested and a DNS lookup for net.connect that refuses blocked addresses.
// The lookup asks for both families itself and hands the socket the very addresses it checked, so neither the socket's
// hints nor a second DNS answer (rebinding) decide what it connects to.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { FetchFailure } from '../errors.js';
import { isBlockedAddress } from './blocked-ranges.js';

/**
 * Thrown into net.connect when a host is or resolves to a blocked address; the client maps it to `blocked_url`, naming
 * the setting when the policy that refused it does (`nameSetting`).
 */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(
    readonly hostname: string,
    readonly nameSetting = false,
  ) {
    super(`${hostname} is or resolves to a private or reserved address`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * Resolves a host name to its addresses of `options.family` (the guard asks 4 and 6 apart); dns.lookup by default (the
 * system resolver, /etc/hosts included).
 */
export type ResolveHost = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

export interface AddressPolicyOptions {
  allowPrivateNetworks: boolean;
  /**
   * Whether refusals name FETCH_ALLOW_PRIVATE_NETWORKS: outside production whoever fetches is most likely the one
   * running the server, testing it on a local page; in production the caller cannot change it and need not know.
   */
  nameSetting?: boolean;
  isBlocked?: (ip: string) => boolean;
  resolveHost?: ResolveHost;
}

/** What a deployment (or a test) may change about the policy besides the flag: which addresses, which resolver. */
export type AddressRules = Pick<AddressPolicyOptions, 'isBlocked' | 'resolveHost'>;

export interface AddressPolicy {
  /** Whether a socket may connect to this IP address. */
  allows(ip: string): boolean;
  /** Whether its refusals name the setting that lifts them (AddressPolicyOptions). */
  readonly nameSetting: boolean;
  /** Scheme and IP-literal check done before any socket exists; null when the URL may be requested. */
  checkUrl(url: URL): FetchFailure | null;
  /**
   * For net.connect / tls.connect `lookup`: resolves both families, refuses if ANY address is blocked, returns what it
   * checked (of the family the socket asked for, when it named one).
   */
  lookup: LookupFunction;
}

const SCHEMES = new Set(['http:', 'https:']);

const resolveWithDns: ResolveHost = (hostname, options) => dns.promises.lookup(hostname, { ...options, all: true });

/** "No such name" and "no address of this family": the answer of a name that has only the other family. */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA']);
const FAMILIES = [4, 6] as const;

/**
 * Every address of `hostname`, IPv4 then IPv6, each family asked for on its own. Not with the socket's options:
 * net.connect asks with AI_ADDRCONFIG, with which getaddrinfo on a machine without an IPv6 address of its own asks
 * for A records only, so a name with only AAAA records did not resolve and AAAA answers went unchecked. A family that
 * fails is left out when the other answers (nothing unchecked is ever connected to); when both fail, the error that
 * says most: a temporary failure before "no such name".
 */
async function resolveBothFamilies(resolveHost: ResolveHost, hostname: string): Promise<LookupAddress[]> {
  const answers = await Promise.allSettled(
    FAMILIES.map(async (family) => ({ family, found: await resolveHost(hostname, { family }) })),
  );
  const addresses: LookupAddress[] = [];
  const failures: NodeJS.ErrnoException[] = [];
  for (const answer of answers) {
    if (answer.status === 'rejected') {
      failures.push(answer.reason as NodeJS.ErrnoException);
      continue;
    }
    // Only answers of the family asked: a resolver that answers every question with all its addresses (a hosts
    // table) still gives each address once.
    const { family, found } = answer.value;
    for (const { address } of found) if (isIP(address) === family) addresses.push({ address, family });
  }
  if (addresses.length > 0) return addresses;
  const failure = failures.find((f) => !NO_ADDRESS.has(f.code ?? '')) ?? failures[0];
  if (failure) throw failure;
  throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/** The family a socket asked its lookup for: 4, 6, or 0 for either. */
function familyAsked(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * The host of a URL as an address when it is an IP literal (WHATWG URL already turned 0x7f.1 and 2130706433 into dotted
 * form).
 */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? host : null;
}

/**
 * The refusal callers see: it names the host, never which address it resolved to (that would leak internal DNS);
 * with `nameSetting`, also the setting that lets this server fetch such addresses.
 */
export function blockedFailure(url: URL, nameSetting = false): FetchFailure {
  const verb = ipLiteralOf(url) === null ? 'resolves to' : 'is';
  const detail = `${url.hostname} ${verb} a private or reserved address; only public internet addresses can be fetched`;
  if (!nameSetting) return { code: 'blocked_url', detail, retryable: false };
  return {
    code: 'blocked_url',
    detail: `${detail} unless Fetchdown runs with FETCH_ALLOW_PRIVATE_NETWORKS=1`,
    retryable: false,
    retryHint:
      'to fetch private and loopback addresses (a page on this machine, a test site), set ' +
      'FETCH_ALLOW_PRIVATE_NETWORKS=1 where Fetchdown runs and start it again',
  };
}

export function createAddressPolicy(options: AddressPolicyOptions): AddressPolicy {
  const { allowPrivateNetworks, isBlocked = isBlockedAddress, resolveHost = resolveWithDns } = options;
  const nameSetting = options.nameSetting ?? false;
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
    return ip !== null && !allows(ip) ? blockedFailure(url, nameSetting) : null;
  }

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveBothFamilies(resolveHost, hostname).then(
      (addresses) => {
        const family = familyAsked(lookupOptions.family);
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        const first = usable[0];
        // Refuse on any blocked answer of either family, not only the first: the socket may fall back to the others
        // (happy eyeballs), and a name that points inward at all is not one to fetch.
        if (addresses.some((a) => !allows(a.address))) callback(new BlockedAddressError(hostname, nameSetting), '');
        else if (!first)
          callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        else if (lookupOptions.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  return { allows, nameSetting, checkUrl, lookup };
}

/** The URL check with the standard ranges: http/https only, IP literals outside the blocked ranges unless allowed. */
export function checkUrl(url: URL, allowPrivate: boolean): FetchFailure | null {
  return createAddressPolicy({ allowPrivateNetworks: allowPrivate }).checkUrl(url);
}
