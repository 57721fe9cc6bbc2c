// The tests' DNS for the SSRF guard (its `resolveHost`): names and their addresses, answered by record type as a
// resolver answers, A records to a question for family 4 and AAAA records to one for family 6.
import { isIP } from 'node:net';
import type { ResolveHost } from '../../src/net/guard.js';

/** The error getaddrinfo gives for a name with no address of the family asked. */
export const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });

/**
 * `records` maps a name to its addresses, IPv4 and IPv6 together. A question that names no family is answered as
 * getaddrinfo answers net.connect's (AI_ADDRCONFIG) on a machine without an IPv6 address of its own: A records only.
 */
export function createTestDns(records: Record<string, readonly string[]>): ResolveHost {
  return async (hostname, options) => {
    const family = options.family === 6 || options.family === 'IPv6' ? 6 : 4;
    const addresses = (records[hostname] ?? []).filter((address) => isIP(address) === family);
    if (addresses.length === 0) throw notFound(hostname);
    return addresses.map((address) => ({ address, family }));
  };
}
