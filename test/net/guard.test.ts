// The URL check (schemes, IP literals in every spelling) and the connect-time lookup that refuses blocked answers.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import {
  BlockedAddressError,
  checkUrl,
  createAddressPolicy,
  type AddressPolicy,
  type ResolveHost,
} from '../../src/net/guard.js';
import { createGuardedAgent } from '../../src/net/guarded-agent.js';
import { createTestDns, notFound } from '../helpers/test-dns.js';
import { startLoopback } from './loopback.js';

const LOOPBACK_SPELLINGS = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://017700000001/',
  'http://0x7f.0.0.1/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://127.0.1/',
  'http://127.0.0.1./',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/',
  'http://0/',
  'http://0.0.0.0/',
  'http://[::]/',
  'http://user:pass@127.0.0.1/',
  'https://127.0.0.1:8443/',
];

const METADATA_AND_PRIVATE = [
  'http://169.254.169.254/latest/meta-data',
  'http://[fd00:ec2::254]/latest/meta-data',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://[fe80::1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
];

type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookupWith(policy: AddressPolicy, hostname: string, all: boolean): Promise<LookupResult> {
  return new Promise((resolve) => {
    policy.lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
  });
}

describe('checkUrl', () => {
  test('refuses every spelling of loopback', () => {
    for (const url of LOOPBACK_SPELLINGS) {
      const failure = checkUrl(new URL(url), false);
      assert.equal(failure?.code, 'blocked_url', url);
      assert.equal(failure?.retryable, false);
      assert.doesNotMatch(failure?.detail ?? '', /user|pass/, 'userinfo never echoed');
    }
  });

  test('refuses metadata, private, link-local and IPv4-embedding literals', () => {
    for (const url of METADATA_AND_PRIVATE) assert.equal(checkUrl(new URL(url), false)?.code, 'blocked_url', url);
  });

  test('the detail names the host', () => {
    assert.match(
      checkUrl(new URL('http://169.254.169.254/x'), false)?.detail ?? '',
      /169\.254\.169\.254 is a private or reserved address/,
    );
  });

  test('only http and https, even with private networks allowed', () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/',
      'gopher://example.com/',
      'data:text/plain,hi',
      'javascript:alert(1)',
      'ws://example.com/',
    ]) {
      for (const allow of [false, true]) {
        const failure = checkUrl(new URL(url), allow);
        assert.equal(failure?.code, 'blocked_url', url);
        assert.match(failure?.detail ?? '', /only http and https/);
      }
    }
  });

  test('allows public literals and host names (names are checked at connect)', () => {
    for (const url of [
      'http://8.8.8.8/',
      'https://1.1.1.1/dns',
      'http://[2606:4700::1111]/',
      'https://example.com/a?b',
      'http://localhost/',
    ]) {
      assert.equal(checkUrl(new URL(url), false), null, url);
    }
  });

  test('allows private literals when private networks are allowed', () => {
    for (const url of [...LOOPBACK_SPELLINGS, ...METADATA_AND_PRIVATE])
      assert.equal(checkUrl(new URL(url), true), null, url);
  });

  test('the blocked decision is injectable', () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: false, isBlocked: (ip) => ip === '127.0.0.2' });
    assert.equal(policy.checkUrl(new URL('http://127.0.0.1/')), null);
    assert.equal(policy.checkUrl(new URL('http://127.0.0.2/'))?.code, 'blocked_url');
    assert.equal(policy.allows('127.0.0.1'), true);
    assert.equal(policy.allows('127.0.0.2'), false);
  });
});

describe('lookup', () => {
  test('localhost resolves to loopback and is refused with ERR_BLOCKED_ADDRESS', async () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: false });
    for (const all of [true, false]) {
      const { error } = await lookupWith(policy, 'localhost', all);
      assert.ok(error instanceof BlockedAddressError);
      assert.equal(error.code, 'ERR_BLOCKED_ADDRESS');
    }
  });

  test('refuses when ANY answer is blocked', async () => {
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      resolveHost: createTestDns({ 'mixed.test': ['93.184.215.14', '10.0.0.7'] }),
    });
    const { error } = await lookupWith(policy, 'mixed.test', true);
    assert.ok(error instanceof BlockedAddressError);
  });

  test('returns every checked answer, or the first one, in the shape net.connect asked for', async () => {
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      resolveHost: createTestDns({ 'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
    });
    const all = await lookupWith(policy, 'public.test', true);
    assert.equal(all.error, null);
    assert.deepEqual(all.address, [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    const one = await lookupWith(policy, 'public.test', false);
    assert.deepEqual([one.error, one.address, one.family], [null, '93.184.215.14', 4]);
  });

  test('passes DNS errors through unchanged', async () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: false, resolveHost: createTestDns({}) });
    const { error } = await lookupWith(policy, 'nowhere.test', true);
    assert.equal(error?.code, 'ENOTFOUND');
  });

  test('asks for each family on its own, whatever the socket asked: AAAA answers are checked and handed over', async () => {
    const asked: unknown[] = [];
    const dns = createTestDns({ 'v6.test': ['2606:4700::1111'], 'inward.test': ['93.184.215.14', 'fd00:ec2::254'] });
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      resolveHost: (hostname, options) => {
        asked.push(options.family);
        return dns(hostname, options);
      },
    });
    // net.connect's own question: no family, AI_ADDRCONFIG.
    const v6 = await new Promise<LookupResult>((resolve) =>
      policy.lookup('v6.test', { all: true, hints: 32 }, (error, address) => resolve({ error, address })),
    );
    assert.equal(v6.error, null);
    assert.deepEqual(v6.address, [{ address: '2606:4700::1111', family: 6 }]);
    assert.deepEqual(asked.sort(), [4, 6]);
    const inward = await lookupWith(policy, 'inward.test', true);
    assert.ok(inward.error instanceof BlockedAddressError, 'a private AAAA behind a public A is refused');
  });

  test('a socket that names a family gets only addresses of that family, all of them checked', async () => {
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      resolveHost: createTestDns({ 'dual.test': ['93.184.215.14', '2606:4700::1111'], 'v4.test': ['93.184.215.14'] }),
    });
    const lookupFamily = (hostname: string, family: number) =>
      new Promise<LookupResult>((resolve) =>
        policy.lookup(hostname, { family }, (error, address, family) => resolve({ error, address, family })),
      );
    const six = await lookupFamily('dual.test', 6);
    assert.deepEqual([six.error, six.address, six.family], [null, '2606:4700::1111', 6]);
    const none = await lookupFamily('v4.test', 6);
    assert.equal(none.error?.code, 'ENOTFOUND');
  });

  test('one family failing leaves the other; both failing reports a temporary failure before "no such name"', async () => {
    const flakyAaaa: ResolveHost = async (hostname, options) => {
      if (options.family === 4) return [{ address: '93.184.215.14', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
    };
    const partial = await lookupWith(
      createAddressPolicy({ allowPrivateNetworks: false, resolveHost: flakyAaaa }),
      'a.test',
      true,
    );
    assert.deepEqual([partial.error, partial.address], [null, [{ address: '93.184.215.14', family: 4 }]]);

    const down: ResolveHost = async (hostname, options) => {
      if (options.family === 4) throw notFound(hostname);
      throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
    };
    const failed = await lookupWith(
      createAddressPolicy({ allowPrivateNetworks: false, resolveHost: down }),
      'b.test',
      true,
    );
    assert.equal(failed.error?.code, 'EAI_AGAIN');
  });

  test('allows loopback answers when private networks are allowed', async () => {
    const { error } = await lookupWith(createAddressPolicy({ allowPrivateNetworks: true }), 'localhost', true);
    assert.equal(error, null);
  });

  test('the socket connects to the address the lookup checked, not to a second DNS answer', async (t) => {
    const site = await startLoopback((_req, res) => res.end('pinned'));
    t.after(() => site.close());
    // "pinned.test" exists in no DNS: the socket can only reach the server through the lookup's own answer.
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      isBlocked: () => false,
      resolveHost: createTestDns({ 'pinned.test': ['127.0.0.1'] }),
    });
    const socket = connect({ host: 'pinned.test', port: site.port, lookup: policy.lookup });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    assert.equal(socket.remoteAddress, '127.0.0.1');
    socket.destroy();

    const refusing = createAddressPolicy({
      allowPrivateNetworks: false,
      resolveHost: createTestDns({ 'pinned.test': ['127.0.0.1'] }),
    });
    const refused = connect({ host: 'pinned.test', port: site.port, lookup: refusing.lookup });
    const error = await new Promise<Error>((resolve) => refused.once('error', resolve));
    assert.ok(error instanceof BlockedAddressError);
  });
});

describe('guarded agent (the check at the socket, without the URL check in front)', () => {
  test('refuses blocked IP literals and host names before any byte is sent, allows the rest', async (t) => {
    const site = await startLoopback((_req, res) => res.end('reached'));
    t.after(() => site.close());
    const policy = createAddressPolicy({
      allowPrivateNetworks: false,
      isBlocked: (ip) => ip !== '127.0.0.1',
      resolveHost: createTestDns({ 'inside.test': ['127.0.0.2'], 'ok.test': ['127.0.0.1'] }),
    });
    const agent = createGuardedAgent(policy, { timeoutMs: 2000 });
    t.after(() => agent.close());
    for (const origin of [
      `http://127.0.0.2:${site.port}`,
      `http://[::1]:${site.port}`,
      `http://inside.test:${site.port}`,
    ]) {
      await assert.rejects(
        agent.request({ origin, path: '/', method: 'GET' }),
        { code: 'ERR_BLOCKED_ADDRESS' },
        origin,
      );
    }
    assert.equal(site.hits(), 0);
    const allowed = await agent.request({ origin: `http://ok.test:${site.port}`, path: '/', method: 'GET' });
    assert.equal(await allowed.body.text(), 'reached');
  });
});
