// POST /fetch of host names the test DNS answers with A records, AAAA records or both: the guard asks for both
// families whatever the socket's own hints, refuses a name when any answer is blocked, connects to the checked ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBlockedAddress } from '../../src/net/blocked-ranges.js';
import { startSiteAndApp } from '../helpers/test-app.js';
import { createTestDns } from '../helpers/test-dns.js';

// Two addresses stand for the public internet, both reaching the fixture site on 127.0.0.1: 127.0.0.1 itself, and
// the IPv6 address ::ffff:127.0.0.1 (IPv4-mapped: an IPv6 socket that connects to it lands on 127.0.0.1). Every
// other address is judged by the real blocked ranges.
const PUBLIC_STAND_INS = new Set(['127.0.0.1', '::ffff:127.0.0.1']);

const { site, api } = await startSiteAndApp(
  { FETCH_ALLOW_PRIVATE_NETWORKS: '0', ROBOTS_TXT: 'ignore' },
  {
    addresses: {
      isBlocked: (ip) => !PUBLIC_STAND_INS.has(ip) && isBlockedAddress(ip),
      resolveHost: createTestDns({
        'v6-only.test': ['::ffff:127.0.0.1'],
        'v6-internal.test': ['fd00:ec2::254'],
        'dual-internal.test': ['127.0.0.1', 'fd00:ec2::254'],
      }),
    },
  },
);
const port = Number(new URL(site.origin).port);

test('a host with only an AAAA record is fetched through its IPv6 address', async () => {
  const url = `http://v6-only.test:${port}/article`;
  const res = await api.post('/fetch', { url });
  assert.equal(res.status, 200, res.text);
  assert.match(res.body.markdown, /^# Growing Tomatoes on a Balcony/);
  assert.equal(res.body.metadata.url, url);
  assert.equal(res.body.metadata.status_code, 200);
  assert.equal(res.body.fetch_info.fetcher_used, 'html');
});

test('a host whose only AAAA record is private is 403 blocked_url, naming the host and not the address', async () => {
  const res = await api.post('/fetch', { url: `http://v6-internal.test:${port}/article` });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'blocked_url');
  assert.match(res.body.detail, /^v6-internal\.test resolves to a private or reserved address/);
  assert.doesNotMatch(res.body.detail, /fd00/);
});

test('a public A record does not let a private AAAA record of the same name through', async () => {
  const before = site.hits();
  const res = await api.post('/fetch', { url: `http://dual-internal.test:${port}/article` });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'blocked_url');
  assert.match(res.body.detail, /^dual-internal\.test resolves to a private or reserved address/);
  assert.equal(site.hits(), before, 'nothing reached the site');
});
