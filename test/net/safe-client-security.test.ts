// SSRF at the socket: refused requests never reach the server, and every redirect hop is checked again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSafeClient, type SafeClientOptions } from '../../src/net/safe-client.js';
import { createTestDns } from '../helpers/test-dns.js';
import { startLoopback, type Loopback } from './loopback.js';

const BASE: SafeClientOptions = {
  allowPrivateNetworks: false,
  timeoutMs: 2000,
  maxBytes: 1 << 20,
  maxRedirects: 5,
  userAgent: 'FetchdownTest/1.0',
};

function clientWith(t: { after(fn: () => Promise<void>): void }, overrides: Partial<SafeClientOptions>) {
  const client = createSafeClient({ ...BASE, ...overrides });
  t.after(() => client.close());
  return client;
}

let site: Loopback;
before(async () => {
  site = await startLoopback((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/go?')) {
      res.writeHead(302, { location: decodeURIComponent(path.slice(4)) });
      res.end();
    } else res.end(`site ${path} auth=${req.headers.authorization ?? 'none'}`);
  });
});
after(() => site.close());

describe('with private networks refused', () => {
  test('no spelling of the loopback server reaches it', async (t) => {
    const client = clientWith(t, {});
    const before = site.hits();
    const spellings = [
      site.url('/'),
      `http://localhost:${site.port}/`,
      `http://LOCALHOST:${site.port}/`,
      `http://2130706433:${site.port}/`,
      `http://0177.0.0.1:${site.port}/`,
      `http://0x7f.0.0.1:${site.port}/`,
      `http://127.1:${site.port}/`,
      `http://[::ffff:127.0.0.1]:${site.port}/`,
      `http://[::1]:${site.port}/`,
      `http://0:${site.port}/`,
      `http://user:pass@127.0.0.1:${site.port}/`,
    ];
    for (const url of spellings) {
      const outcome = await client.request(new URL(url));
      assert.equal(outcome.ok, false, url);
      assert.equal(!outcome.ok && outcome.failure.code, 'blocked_url', url);
    }
    assert.equal(site.hits() - before, 0);
  });

  test('a host name that resolves to a blocked address is refused at connect, naming the host only', async (t) => {
    const client = clientWith(t, { resolveHost: createTestDns({ 'intranet.test': ['10.1.2.3'] }) });
    const outcome = await client.request(new URL('http://intranet.test/'));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'blocked_url');
    assert.match(outcome.failure.detail, /^intranet\.test resolves to a private or reserved address/);
    assert.doesNotMatch(outcome.failure.detail, /10\.1\.2\.3/);
  });

  test('one blocked answer among public ones is enough to refuse', async (t) => {
    const client = clientWith(t, {
      isBlocked: (ip) => ip === '127.0.0.2',
      resolveHost: createTestDns({ 'mixed.test': ['127.0.0.1', '127.0.0.2'] }),
    });
    const before = site.hits();
    const outcome = await client.request(new URL(`http://mixed.test:${site.port}/`));
    assert.equal(!outcome.ok && outcome.failure.code, 'blocked_url');
    assert.equal(site.hits() - before, 0);
  });

  test('the socket goes to the checked address', async (t) => {
    // "pinned.test" is in no DNS, so reaching the site proves the connection used the lookup's answer.
    const client = clientWith(t, {
      isBlocked: () => false,
      resolveHost: createTestDns({ 'pinned.test': ['127.0.0.1'] }),
    });
    const outcome = await client.request(new URL(`http://pinned.test:${site.port}/pinned`));
    assert.ok(outcome.ok);
    assert.match(outcome.response.body.toString(), /site \/pinned/);
  });
});

describe('redirects are re-checked at every hop', () => {
  test('a redirect to a blocked IP literal is refused and never reaches it', async (t) => {
    let second: Loopback;
    try {
      second = await startLoopback((_req, res) => res.end('second'), '127.0.0.2');
    } catch {
      t.skip('this system cannot bind 127.0.0.2 (Linux routes all of 127/8 to lo; macOS does not)');
      return;
    }
    t.after(() => second.close());
    const hop = site.url(`/go?${encodeURIComponent(second.url('/'))}`);

    // Control: with nothing blocked, the second server is reachable through the redirect.
    const open = await clientWith(t, { isBlocked: () => false }).request(new URL(hop));
    assert.ok(open.ok);
    assert.equal(open.response.body.toString(), 'second');
    assert.equal(open.response.redirects, 1);
    assert.equal(second.hits(), 1);

    const guarded = await clientWith(t, { isBlocked: (ip) => ip === '127.0.0.2' }).request(new URL(hop));
    assert.ok(!guarded.ok);
    assert.equal(guarded.failure.code, 'blocked_url');
    assert.match(guarded.failure.detail, /127\.0\.0\.2/);
    assert.equal(second.hits(), 1, 'the refused hop never reached the second server');
  });

  test('a redirect to a host name that resolves to a blocked address is refused at lookup', async (t) => {
    const client = clientWith(t, {
      isBlocked: (ip) => ip === '127.0.0.2',
      resolveHost: createTestDns({ 'rebind.test': ['127.0.0.2'] }),
    });
    const before = site.hits();
    const outcome = await client.request(
      new URL(site.url(`/go?${encodeURIComponent(`http://rebind.test:${site.port}/secret`)}`)),
    );
    assert.equal(!outcome.ok && outcome.failure.code, 'blocked_url');
    assert.equal(site.hits() - before, 1, 'only the first hop arrived');
  });

  test('a redirect to another scheme is refused', async (t) => {
    const client = clientWith(t, { allowPrivateNetworks: true });
    for (const target of ['file:///etc/passwd', 'ftp://127.0.0.1/']) {
      const outcome = await client.request(new URL(site.url(`/go?${encodeURIComponent(target)}`)));
      assert.ok(!outcome.ok, target);
      assert.equal(outcome.failure.code, 'blocked_url');
      assert.match(outcome.failure.detail, /only http and https/);
    }
  });
});

describe('credentials', () => {
  test('userinfo in the URL is never sent', async (t) => {
    const client = clientWith(t, { allowPrivateNetworks: true });
    const outcome = await client.request(new URL(`http://user:secret@127.0.0.1:${site.port}/who`));
    assert.ok(outcome.ok);
    assert.equal(outcome.response.body.toString(), 'site /who auth=none');
    assert.equal(outcome.response.url.username, 'user', 'the URL is reported as given');
  });

  test('an Authorization header follows same-origin redirects but not cross-origin ones', async (t) => {
    const other = await startLoopback((req, res) => res.end(`other auth=${req.headers.authorization ?? 'none'}`));
    t.after(() => other.close());
    const client = clientWith(t, { allowPrivateNetworks: true });
    const headers = { Authorization: 'Bearer x' };
    const same = await client.request(new URL(site.url(`/go?${encodeURIComponent('/me')}`)), { headers });
    assert.equal(same.ok && same.response.body.toString(), 'site /me auth=Bearer x');
    const cross = await client.request(new URL(site.url(`/go?${encodeURIComponent(other.url('/'))}`)), { headers });
    assert.equal(cross.ok && cross.response.body.toString(), 'other auth=none');
  });
});
