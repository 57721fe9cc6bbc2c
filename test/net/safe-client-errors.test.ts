// What a remote site can do wrong comes back as a FetchFailure value, quickly; nothing is thrown.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ResolveHost } from '../../src/net/guard.js';
import { createSafeClient, type SafeClient, type SafeClientOptions } from '../../src/net/safe-client.js';
import { findClosedPort, startLoopback, type Loopback } from './loopback.js';

const TIMEOUT_MS = 300;
const BASE: SafeClientOptions = {
  allowPrivateNetworks: true,
  timeoutMs: TIMEOUT_MS,
  maxBytes: 1 << 20,
  maxRedirects: 3,
  userAgent: 'FetchdownTest/1.0',
};

const noSuchHost: ResolveHost = async (hostname) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};
const dnsDown: ResolveHost = async (hostname) => {
  throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
};

/** A raw TCP server for answers node:http would never send. */
async function startRaw(onSocket: (socket: Socket) => void): Promise<{ port: number; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  after(() => {
    sockets.forEach((s) => s.destroy());
    server.close();
  });
  return { port: (server.address() as { port: number }).port, server };
}

let site: Loopback;
let client: SafeClient;
before(async () => {
  site = await startLoopback((req, res) => {
    if (req.url === '/hang') return; // never answers
    if (req.url === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part, then silence');
      return;
    }
    if (req.url === '/reset-mid-body') {
      res.writeHead(200, { 'content-length': 1000 });
      res.write('x'.repeat(100));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    res.end('ok');
  });
  client = createSafeClient(BASE);
});
after(async () => {
  await client.close();
  await site.close();
});

async function failureOf(url: string, opts?: Parameters<SafeClient['request']>[1], using = client) {
  const outcome = await using.request(new URL(url), opts);
  assert.ok(!outcome.ok, `expected a failure for ${url}`);
  return outcome.failure;
}

describe('timeouts', () => {
  // Each server below never finishes: a failure that names the deadline (or the cancellation) is the proof.
  test('no answer at all is upstream_timeout, after timeoutMs', async () => {
    const failure = await failureOf(site.url('/hang'));
    assert.equal(failure.code, 'upstream_timeout');
    assert.equal(failure.retryable, true);
    assert.match(failure.detail, /did not answer within 300 ms/);
  });

  test('the deadline covers the body too', async () => {
    const failure = await failureOf(site.url('/slow-body'));
    assert.equal(failure.code, 'upstream_timeout');
    assert.match(failure.detail, /300 ms/);
  });

  test("the caller's signal cancels the request", async () => {
    const relaxed = createSafeClient({ ...BASE, timeoutMs: 10_000 });
    after(() => relaxed.close());
    const failure = await failureOf(site.url('/hang'), { signal: AbortSignal.timeout(100) }, relaxed);
    assert.equal(failure.code, 'upstream_timeout');
    assert.match(failure.detail, /cancelled/);
  });

  test('an already aborted signal fails at once without a request', async () => {
    const before = site.hits();
    const failure = await failureOf(site.url('/'), { signal: AbortSignal.abort() });
    assert.equal(failure.code, 'upstream_timeout');
    assert.equal(site.hits(), before);
  });
});

describe('programmer errors', () => {
  test('an invalid header from the caller throws instead of blaming the site', async () => {
    await assert.rejects(client.request(new URL(site.url('/')), { headers: { 'x-bad': 'a\r\nb' } }), {
      code: 'UND_ERR_INVALID_ARG',
    });
  });
});

describe('unreachable', () => {
  test('a refused connection is upstream_unreachable and retryable', async () => {
    const port = await findClosedPort();
    const failure = await failureOf(`http://127.0.0.1:${port}/`);
    assert.equal(failure.code, 'upstream_unreachable');
    assert.equal(failure.retryable, true);
    assert.match(failure.detail, new RegExp(`127\\.0\\.0\\.1:${port} refused the connection`));
  });

  test('a host that does not exist is upstream_unreachable, not retryable', async (t) => {
    const withDns = createSafeClient({ ...BASE, resolveHost: noSuchHost });
    t.after(() => withDns.close());
    const failure = await failureOf('http://no-such-host.test/', undefined, withDns);
    assert.equal(failure.code, 'upstream_unreachable');
    assert.equal(failure.retryable, false);
    assert.match(failure.detail, /no-such-host\.test does not resolve/);
  });

  test('a temporary DNS failure is retryable', async (t) => {
    const withDns = createSafeClient({ ...BASE, resolveHost: dnsDown });
    t.after(() => withDns.close());
    const failure = await failureOf('http://flaky.test/', undefined, withDns);
    assert.equal(failure.code, 'upstream_unreachable');
    assert.equal(failure.retryable, true);
  });

  test('a connection reset in the middle of the body is upstream_unreachable', async () => {
    const failure = await failureOf(site.url('/reset-mid-body'));
    assert.equal(failure.code, 'upstream_unreachable');
    assert.equal(failure.retryable, true);
    assert.match(failure.detail, /closed the connection before the answer was complete/);
  });

  test('a server that hangs up without answering is upstream_unreachable', async () => {
    const raw = await startRaw((socket) => socket.once('data', () => socket.destroy()));
    const failure = await failureOf(`http://127.0.0.1:${raw.port}/`);
    assert.equal(failure.code, 'upstream_unreachable');
  });

  test('garbage instead of HTTP is upstream_unreachable', async () => {
    const raw = await startRaw((socket) => socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n')));
    const failure = await failureOf(`http://127.0.0.1:${raw.port}/`);
    assert.equal(failure.code, 'upstream_unreachable');
    assert.match(failure.detail, /invalid HTTP response/);
  });

  test('a failed TLS handshake is upstream_unreachable, not retryable', async () => {
    // An https:// URL pointed at a plain-HTTP port: the handshake cannot succeed.
    const failure = await failureOf(`https://127.0.0.1:${site.port}/`);
    assert.equal(failure.code, 'upstream_unreachable');
    assert.equal(failure.retryable, false);
    assert.match(failure.detail, /TLS/);
  });
});
