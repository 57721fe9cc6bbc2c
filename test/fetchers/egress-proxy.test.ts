// The browser's egress proxy: forwards what the policy allows, refuses the rest at connect time, and resolves names
// itself with the guard's lookup, so a DNS answer that changes between two lookups (rebinding) cannot get through.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { REFUSED_HEADER, startEgressProxy, type EgressProxy } from '../../src/fetchers/egress-proxy.js';
import { createAddressPolicy } from '../../src/net/guard.js';
import { startSecretServer } from '../helpers/fixture-fetchers.js';

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
function tunnel(hostPort: string): Promise<string> {
  const { port } = new URL(proxy.url);
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
      assert.equal(res.headers[REFUSED_HEADER], '1');
    }
    assert.equal(secret.hits(), 0);
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
