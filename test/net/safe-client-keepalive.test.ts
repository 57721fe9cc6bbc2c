// A site that closes kept-alive connections the moment they are reused: the client retries an idempotent request
// once on a fresh connection, and never retries a request that is not idempotent or whose answer had begun.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createAddressPolicy } from '../../src/net/guard.js';
import { createGuardedAgent } from '../../src/net/guarded-agent.js';
import { retryResetOnce } from '../../src/net/reset-retry.js';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.js';

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok';

interface ResettingSite {
  origin: string;
  /** Requests that reached the site, by method and path. */
  requests: string[];
  connections: number;
  /** Reused connections the site closed instead of answering. */
  resets: number;
}

/**
 * Answers the first request on each connection and keeps it open; on a later request on the same connection it
 * reads the request and closes without a byte of answer, as a server whose keep-alive timer fired just then does.
 * `/half` sends the status line and headers, then closes: the answer had begun.
 */
async function startResettingSite(): Promise<ResettingSite & { close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const site: ResettingSite = { origin: '', requests: [], connections: 0, resets: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    site.connections++;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let served = 0;
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      let end: number;
      while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        const [method, path] = head.split(' ');
        site.requests.push(`${method} ${path}`);
        if (path === '/half') return void socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        if (served++ > 0) {
          site.resets++;
          return void socket.destroy();
        }
        socket.write(ANSWER);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(site, {
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

let site: Awaited<ReturnType<typeof startResettingSite>>;
let client: SafeClient;
before(async () => {
  site = await startResettingSite();
  client = createSafeClient({
    allowPrivateNetworks: true,
    timeoutMs: 5000,
    maxBytes: 1 << 20,
    maxRedirects: 3,
    userAgent: 'FetchdownTest/1.0',
    maxConnectionsPerOrigin: 4,
  });
});
after(async () => {
  await client.close();
  await site.close();
});

describe('keep-alive resets', () => {
  test('300 GETs, 4 at a time, through a site that closes every reused connection: zero failures', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 75; round++) {
      const outcomes = await Promise.all(
        [0, 1, 2, 3].map((i) => client.request(new URL(`${site.origin}/page/${round}-${i}`))),
      );
      for (const outcome of outcomes)
        if (!outcome.ok) failures.push(outcome.failure.detail);
        else assert.equal(outcome.response.body.toString(), 'ok');
    }
    assert.deepEqual(failures, []);
    assert.ok(site.resets > 0, 'the site did close reused connections, so the retry was exercised');
    // Each reset costs exactly one repeat: every other request reached the site once.
    assert.equal(site.requests.length, 300 + site.resets);
  });

  test('a connection closed after the answer began is not retried', async () => {
    const before = site.requests.length;
    const outcome = await client.request(new URL(`${site.origin}/half`));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'upstream_unreachable');
    assert.deepEqual(site.requests.slice(before), ['GET /half']);
  });

  test('a request that is not idempotent (POST) is not retried on a reset', async () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: true });
    const fresh = createGuardedAgent(policy, { timeoutMs: 5000, keepAlive: false });
    const pooled = createGuardedAgent(policy, { timeoutMs: 5000, maxConnectionsPerOrigin: 1 });
    const dispatcher = pooled.compose(retryResetOnce(fresh));
    const send = async (method: string, path: string) => {
      const before = site.requests.length;
      const response = await dispatcher.request({
        origin: site.origin,
        path,
        method,
        body: method === 'POST' ? '' : undefined,
      });
      return { text: await response.body.text(), sent: site.requests.slice(before) };
    };
    try {
      assert.equal((await send('GET', '/warm')).text, 'ok');
      // A GET on the reused connection is reset, then repeated once on a new connection.
      assert.deepEqual(await send('GET', '/again'), { text: 'ok', sent: ['GET /again', 'GET /again'] });
      assert.equal((await send('GET', '/warm')).text, 'ok');
      const before = site.requests.length;
      await assert.rejects(send('POST', '/order'), { code: 'UND_ERR_SOCKET' });
      assert.deepEqual(
        site.requests.slice(before),
        ['POST /order'],
        'sent once, on the reused connection, never again',
      );
    } finally {
      await Promise.all([pooled.close(), fresh.close()]);
    }
  });
});
