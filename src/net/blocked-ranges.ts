// The address ranges Fetchdown never connects to (unless private networks are allowed), kept as CIDR data
// so a reviewer can read the whole policy in one table and each row has its own unit test.
import ipaddr from 'ipaddr.js';

export interface BlockedRange {
  cidr: string;
  why: string;
}

export const BLOCKED_RANGES: readonly BlockedRange[] = [
  // IPv4
  { cidr: '0.0.0.0/8', why: '"this network"; 0.0.0.0 reaches the local host on Linux' },
  { cidr: '10.0.0.0/8', why: 'private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', why: 'carrier-grade NAT shared space (RFC 6598)' },
  { cidr: '127.0.0.0/8', why: 'loopback' },
  { cidr: '169.254.0.0/16', why: 'link-local, includes cloud metadata 169.254.169.254' },
  { cidr: '172.16.0.0/12', why: 'private network (RFC 1918)' },
  { cidr: '192.0.0.0/24', why: 'IETF protocol assignments, includes some cloud metadata (192.0.0.192)' },
  { cidr: '192.0.2.0/24', why: 'documentation TEST-NET-1 (RFC 5737)' },
  { cidr: '192.88.99.0/24', why: 'deprecated 6to4 relay anycast (RFC 7526)' },
  { cidr: '192.168.0.0/16', why: 'private network (RFC 1918)' },
  { cidr: '198.18.0.0/15', why: 'benchmarking (RFC 2544)' },
  { cidr: '198.51.100.0/24', why: 'documentation TEST-NET-2 (RFC 5737)' },
  { cidr: '203.0.113.0/24', why: 'documentation TEST-NET-3 (RFC 5737)' },
  { cidr: '224.0.0.0/4', why: 'multicast' },
  { cidr: '240.0.0.0/4', why: 'reserved, includes broadcast 255.255.255.255' },
  // IPv6
  { cidr: '::/128', why: 'unspecified; reaches the local host like 0.0.0.0' },
  { cidr: '::1/128', why: 'loopback' },
  { cidr: '::/96', why: 'IPv4-compatible (deprecated), embeds an IPv4 address' },
  { cidr: '::ffff:0:0/96', why: 'IPv4-mapped, embeds an IPv4 address' },
  { cidr: '::ffff:0:0:0/96', why: 'IPv4-translated (RFC 2765), embeds an IPv4 address' },
  { cidr: '64:ff9b::/96', why: 'NAT64 well-known prefix, embeds an IPv4 address' },
  { cidr: '64:ff9b:1::/48', why: 'local-use NAT64 (RFC 8215), embeds an IPv4 address' },
  { cidr: '100::/64', why: 'discard-only (RFC 6666)' },
  { cidr: '2001::/32', why: 'Teredo, embeds an IPv4 address' },
  { cidr: '2001:2::/48', why: 'benchmarking (RFC 5180)' },
  { cidr: '2001:db8::/32', why: 'documentation (RFC 3849)' },
  { cidr: '2002::/16', why: '6to4, embeds an IPv4 address' },
  { cidr: '3fff::/20', why: 'documentation (RFC 9637)' },
  { cidr: 'fc00::/7', why: 'unique local, includes AWS metadata fd00:ec2::254' },
  { cidr: 'fe80::/10', why: 'link-local' },
  { cidr: 'fec0::/10', why: 'site-local (deprecated), still routed inside some networks' },
  { cidr: 'ff00::/8', why: 'multicast' },
];

const PARSED = BLOCKED_RANGES.map((range) => ipaddr.parseCIDR(range.cidr));

/**
 * True when `ip` falls in a blocked range. Anything that does not parse as an address is treated as blocked:
 * the caller asked about an address, so an unreadable one must not slip through.
 */
export function isBlockedAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  const address = ipaddr.parse(ip);
  return PARSED.some((range) => range[0].kind() === address.kind() && address.match(range));
}
