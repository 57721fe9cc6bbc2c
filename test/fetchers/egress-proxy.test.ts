// The browser's egress proxy: forwards what the policy allows, refuses the rest at connect time, and resolves names
// itself with the guard's lookup, so a DNS answer that changes between two lookups (rebinding) cannot get through.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { FAILURE_HEADER, startEgressProxy, type EgressProxy } from '../../src/fetchers/egress-proxy.js';
import { createAddressPolicy } from '../../src/net/guard.js';
import { startSecretServer } from '../helpers/fixture-fetchers.js';
import { findClosedPort, startLoopback } from '../net/loopback.js';

type Server = Awaited<ReturnType<typeof startSecretServer>>;
let allowed: Server;
let secret: Server;
let proxy: EgressProxy;
let lookups = 0;
before(async () => {
  allowed = await startSecretServer('127.0.0.1');
  secret = await startSecretServer('127.0.0.2');
  // 127.0.0.1 is "public" here and 127.0.0.2 "private"; rebind.test answers 127.0.0.1 first, then 127.0.0.2.
  const policy = createAddressPolicy({
    allowPrivateNetworks: false,
    isBlocked: (ip) => ip !== '127.0.0.1',
    resolveHost: async (hostname) => {
      if (hostname === 'rebind.test') return [{ address: lookups++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
      if (hostname === 'inside.test') return [{ address: '127.0.0.2', family: 4 }];
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    },
  });
  proxy = await startEgressProxy(policy);
});
after(async () => {
  await proxy.close();
  await allowed.close();
  await secret.close();
});

/** A plain-http request through the proxy, as Chromium sends it (absolute URL on the request line). */
function viaProxy(url: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path: url, method: 'GET', headers: { host: new URL(url).host } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy; resolves with the status line. */
function tunnel(hostPort: string, via: EgressProxy = proxy): Promise<string> {
  const { port } = new URL(via.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`),
    );
    socket.once('data', (chunk) => {
      resolve(chunk.toString('latin1').split('\r\n')[0]!);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('egress proxy', () => {
  test('forwards plain http to an allowed address', async () => {
    const res = await viaProxy(allowed.url('/hello'));
    assert.equal(res.status, 200);
    assert.equal(res.body, 'TOP-SECRET-INTERNAL');
  });

  test('refuses a blocked address, by literal and by name, marking its own refusal', async () => {
    for (const url of [secret.url('/x'), `http://inside.test:${new URL(secret.origin).port}/x`]) {
      const res = await viaProxy(url);
      assert.equal(res.status, 403, url);
      assert.equal(res.headers[FAILURE_HEADER], '1');
      assert.equal(proxy.failureFor(new URL(url))?.code, 'blocked_url');
    }
    assert.equal(secret.hits(), 0);
  });

  test('a host that refuses the connection is 502 and reported as the HTTP client would, never as blocked', async () => {
    const port = await findClosedPort();
    const res = await viaProxy(`http://127.0.0.1:${port}/x`);
    assert.equal(res.status, 502);
    assert.equal(res.headers[FAILURE_HEADER], '1');
    assert.deepEqual(proxy.failureFor(new URL(`http://127.0.0.1:${port}/`)), {
      code: 'upstream_unreachable',
      detail: `127.0.0.1:${port} refused the connection`,
      retryable: true,
      retryHint: undefined,
    });
    assert.match(await tunnel(`127.0.0.1:${port}`), / 502 /);
    assert.equal(proxy.failureFor(new URL(`https://127.0.0.1:${port}/`))?.code, 'upstream_unreachable');
  });

  test('with credentials, a request without them is 407 and never connects; one with them goes out', async () => {
    const seen: string[] = [];
    const guarded = await startEgressProxy(createAddressPolicy({ allowPrivateNetworks: true }), {
      credentials: { username: 'fetchdown', password: 'pw' },
      onRequest: (url, authenticated) => seen.push(`${url.host} ${authenticated}`),
    });
    const { port } = new URL(guarded.url);
    const send = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: allowed.url('/x'), headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject).end();
      });
    try {
      const before = allowed.hits();
      assert.equal(await send({}), 407);
      assert.equal(
        await send({ 'proxy-authorization': `Basic ${Buffer.from('fetchdown:wrong').toString('base64')}` }),
        407,
      );
      assert.match(await tunnel(new URL(allowed.origin).host, guarded), / 407 /);
      assert.equal(allowed.hits(), before, 'refused before any connection');
      assert.equal(
        await send({ 'proxy-authorization': `Basic ${Buffer.from('fetchdown:pw').toString('base64')}` }),
        200,
      );
      assert.equal(guarded.unauthenticated, 3);
      const host = new URL(allowed.origin).host;
      assert.deepEqual(seen, [`${host} false`, `${host} false`, `${host} false`, `${host} true`]);
    } finally {
      await guarded.close();
    }
  });

  test("a site's own copy of the failure marker is dropped", async () => {
    const site = await startLoopback((_req, res) =>
      res.writeHead(403, { [FAILURE_HEADER]: '1' }).end('the site says no'),
    );
    try {
      const res = await viaProxy(site.url('/'));
      assert.equal(res.status, 403);
      assert.equal(res.headers[FAILURE_HEADER], undefined);
    } finally {
      await site.close();
    }
  });

  test('CONNECT tunnels: allowed opens, blocked is 403', async () => {
    assert.match(await tunnel(`127.0.0.1:${new URL(allowed.origin).port}`), / 200 /);
    assert.match(await tunnel(`127.0.0.2:${new URL(secret.origin).port}`), / 403 /);
    assert.equal(secret.hits(), 0);
  });

  test('DNS rebinding: the proxy connects to the address it checked, never to a later answer', async () => {
    lookups = 0;
    const port = new URL(secret.origin).port;
    // Someone else (the route check) resolved first and saw 127.0.0.1; the proxy's own lookup sees 127.0.0.2.
    lookups = 1;
    const res = await viaProxy(`http://rebind.test:${port}/secret`);
    assert.equal(res.status, 403);
    assert.equal(secret.hits(), 0);
  });
});
