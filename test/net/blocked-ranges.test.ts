// One test per blocked range: an address inside is refused, a neighbour outside is allowed where that is meaningful.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { BLOCKED_RANGES, isBlockedAddress } from '../../src/net/blocked-ranges.js';

/**
 * cidr → addresses inside it, and outside neighbours that must stay allowed (empty where the neighbour is itself
 * blocked or unallocated).
 */
const CASES: Record<string, { inside: string[]; outside: string[] }> = {
  '0.0.0.0/8': { inside: ['0.0.0.0', '0.255.255.255'], outside: ['1.0.0.1'] },
  '10.0.0.0/8': { inside: ['10.0.0.1', '10.255.255.255'], outside: ['9.255.255.255', '11.0.0.1'] },
  '100.64.0.0/10': { inside: ['100.64.0.1', '100.127.255.255'], outside: ['100.63.255.255', '100.128.0.0'] },
  '127.0.0.0/8': { inside: ['127.0.0.1', '127.0.0.2', '127.255.255.254'], outside: ['126.255.255.255', '128.0.0.1'] },
  '169.254.0.0/16': { inside: ['169.254.169.254', '169.254.0.1'], outside: ['169.253.255.255', '169.255.0.1'] },
  '172.16.0.0/12': { inside: ['172.16.0.1', '172.31.255.255'], outside: ['172.15.255.255', '172.32.0.0'] },
  '192.0.0.0/24': { inside: ['192.0.0.1', '192.0.0.192'], outside: ['192.0.1.1'] },
  '192.0.2.0/24': { inside: ['192.0.2.1'], outside: ['192.0.3.1'] },
  '192.88.99.0/24': { inside: ['192.88.99.1'], outside: ['192.88.98.1', '192.88.100.1'] },
  '192.168.0.0/16': { inside: ['192.168.0.1', '192.168.255.255'], outside: ['192.167.255.255', '192.169.0.0'] },
  '198.18.0.0/15': { inside: ['198.18.0.1', '198.19.255.255'], outside: ['198.17.255.255', '198.20.0.0'] },
  '198.51.100.0/24': { inside: ['198.51.100.7'], outside: ['198.51.101.7'] },
  '203.0.113.0/24': { inside: ['203.0.113.9'], outside: ['203.0.114.9'] },
  '224.0.0.0/4': { inside: ['224.0.0.1', '239.255.255.250'], outside: ['223.255.255.255'] },
  '240.0.0.0/4': { inside: ['240.0.0.1', '255.255.255.255'], outside: [] },
  '::/128': { inside: ['::'], outside: [] },
  '::1/128': { inside: ['::1'], outside: [] },
  '::/96': { inside: ['::7f00:1', '::808:808'], outside: [] },
  '::ffff:0:0/96': { inside: ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8'], outside: [] },
  '::ffff:0:0:0/96': { inside: ['::ffff:0:7f00:1'], outside: [] },
  '64:ff9b::/96': { inside: ['64:ff9b::7f00:1', '64:ff9b::808:808'], outside: [] },
  '64:ff9b:1::/48': { inside: ['64:ff9b:1::a00:1', '64:ff9b:1:ffff::1'], outside: [] },
  '100::/64': { inside: ['100::1', '100::ffff:ffff:ffff:ffff'], outside: [] },
  '2001::/32': { inside: ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1'], outside: ['2001:4860:4860::8888'] },
  '2001:2::/48': { inside: ['2001:2::1', '2001:2:0:ffff::1'], outside: ['2001:4860:4860::8844'] },
  '2001:db8::/32': { inside: ['2001:db8::1', '2001:db8:ffff::1'], outside: ['2001:db9::1'] },
  '2002::/16': { inside: ['2002:7f00:1::1', '2002:c0a8:101::1'], outside: ['2003::1', '2001:db7::1'] },
  '3fff::/20': { inside: ['3fff::1', '3fff:fff::1'], outside: ['3fff:1000::1'] },
  'fc00::/7': { inside: ['fc00::1', 'fd00:ec2::254', 'fdff:ffff::1'], outside: [] },
  'fe80::/10': { inside: ['fe80::1', 'fe80::1%eth0', 'febf:ffff::1'], outside: [] },
  'fec0::/10': { inside: ['fec0::1', 'feff:ffff::1'], outside: [] },
  'ff00::/8': { inside: ['ff02::1', 'ff05::1:3', 'ffff::1'], outside: [] },
};

describe('blocked ranges', () => {
  test('every range in the table has a test case, and every case a range', () => {
    assert.deepEqual(BLOCKED_RANGES.map((r) => r.cidr).sort(), Object.keys(CASES).sort());
    for (const range of BLOCKED_RANGES) assert.ok(range.why.length > 0, range.cidr);
  });

  for (const { cidr, why } of BLOCKED_RANGES) {
    test(`${cidr} (${why})`, () => {
      const cases = CASES[cidr];
      assert.ok(cases, `no case for ${cidr}`);
      const range = ipaddr.parseCIDR(cidr);
      for (const ip of cases.inside) {
        // The case data is itself checked, so each test really exercises its own row.
        assert.ok(ipaddr.parse(ip).match(range), `${ip} is not inside ${cidr}`);
        assert.equal(isBlockedAddress(ip), true, `${ip} should be blocked`);
      }
      for (const ip of cases.outside) {
        assert.ok(!ipaddr.parse(ip).match(range), `${ip} is inside ${cidr}`);
        assert.equal(isBlockedAddress(ip), false, `${ip} should be allowed`);
      }
    });
  }

  test('public addresses are allowed', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '2606:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:80b::200e',
    ]) {
      assert.equal(isBlockedAddress(ip), false, ip);
    }
  });

  test('dotted-quad IPv6 spellings are blocked however the parser reads them', () => {
    // ipaddr.js 2.5 reads "::a.b.c.d" as IPv4-mapped rather than IPv4-compatible; both ranges are blocked.
    for (const ip of ['::127.0.0.1', '::8.8.8.8', '0:0:0:0:0:ffff:127.0.0.1', '64:ff9b::10.0.0.1']) {
      assert.equal(isBlockedAddress(ip), true, ip);
    }
  });

  test('what does not parse as an address is blocked, not allowed', () => {
    for (const junk of ['', 'localhost', 'example.com', '1.2.3.4.5', '::g', '256.0.0.1']) {
      assert.equal(isBlockedAddress(junk), true, junk);
    }
  });
});
