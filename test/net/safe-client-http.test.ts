// Ordinary HTTP through the safe client: statuses returned as data, redirects followed and counted, headers, HEAD.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.js';
import { startLoopback, type Loopback } from './loopback.js';

let site: Loopback;
let client: SafeClient;
before(async () => {
  site = await startLoopback((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (chain) {
      const left = Number(chain[1]);
      if (left === 0) res.end('end of chain');
      else {
        res.writeHead(left % 2 ? 301 : 307, { location: `/chain/${left - 1}` });
        res.end();
      }
    } else if (url.pathname === '/status') {
      res.writeHead(Number(url.searchParams.get('code')), { 'content-type': 'text/plain' });
      res.end('status page');
    } else if (url.pathname === '/a/b/relative') {
      res.writeHead(303, { location: '../c?from=relative' });
      res.end();
    } else if (url.pathname === '/no-location') {
      res.writeHead(302);
      res.end('nowhere');
    } else if (url.pathname === '/bad-location') {
      res.writeHead(302, { location: 'http://[oops/' });
      res.end();
    } else if (url.pathname === '/headers') {
      res.setHeader('X-Multi', ['a', 'b']);
      res.setHeader('Content-Type', 'text/plain');
      res.end(JSON.stringify(req.headers));
    } else if (url.pathname === '/head') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': 1234 });
      res.end(req.method === 'HEAD' ? undefined : 'x'.repeat(1234));
    } else res.end(`page ${req.url}`);
  });
  client = createSafeClient({
    allowPrivateNetworks: true,
    timeoutMs: 2000,
    maxBytes: 1 << 20,
    maxRedirects: 3,
    userAgent: 'FetchdownTest/1.0',
  });
});
after(async () => {
  await client.close();
  await site.close();
});

async function get(path: string, opts?: Parameters<SafeClient['request']>[1]) {
  const outcome = await client.request(new URL(site.url(path)), opts);
  assert.ok(outcome.ok, JSON.stringify(!outcome.ok && outcome.failure));
  return outcome.response;
}

describe('statuses', () => {
  test('a 200 comes back with body, final URL and byte count', async () => {
    const response = await get('/hello?x=1');
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), 'page /hello?x=1');
    assert.equal(response.url.href, site.url('/hello?x=1'));
    assert.equal(response.bytes, response.body.length);
    assert.equal(response.bodyTruncated, false);
    assert.equal(response.redirects, 0);
  });

  test('error statuses are responses, not failures: the caller decides', async () => {
    for (const code of [404, 429, 500, 503]) {
      const response = await get(`/status?code=${code}`);
      assert.equal(response.status, code);
      assert.equal(response.body.toString(), 'status page');
    }
  });
});

describe('redirects', () => {
  test('are followed and counted, up to maxRedirects', async () => {
    const response = await get('/chain/3');
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), 'end of chain');
    assert.equal(response.redirects, 3);
    assert.equal(response.url.pathname, '/chain/0');
  });

  test('one more than maxRedirects is a failure saying so', async () => {
    const before = site.hits();
    const outcome = await client.request(new URL(site.url('/chain/4')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'upstream_unreachable');
    assert.match(outcome.failure.detail, /too many redirects \(3\)/);
    assert.equal(site.hits() - before, 4, 'the fifth hop is not requested');
  });

  test('maxRedirects 0 refuses the first redirect', async (t) => {
    const strict = createSafeClient({
      allowPrivateNetworks: true,
      timeoutMs: 2000,
      maxBytes: 1024,
      maxRedirects: 0,
      userAgent: 'x',
    });
    t.after(() => strict.close());
    const outcome = await strict.request(new URL(site.url('/chain/1')));
    assert.equal(!outcome.ok && outcome.failure.code, 'upstream_unreachable');
    const direct = await strict.request(new URL(site.url('/chain/0')));
    assert.ok(direct.ok);
  });

  test('a relative Location is resolved against the current URL', async () => {
    const response = await get('/a/b/relative');
    assert.equal(response.url.href, site.url('/a/c?from=relative'));
    assert.equal(response.body.toString(), 'page /a/c?from=relative');
    assert.equal(site.seen.at(-1)?.method, 'GET');
  });

  test('a 3xx without Location is returned as it is', async () => {
    const response = await get('/no-location');
    assert.equal(response.status, 302);
    assert.equal(response.redirects, 0);
  });

  test('an unparseable Location is an upstream_status failure', async () => {
    const outcome = await client.request(new URL(site.url('/bad-location')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'upstream_status');
    assert.equal(outcome.failure.upstreamStatus, 302);
  });

  test('HEAD stays HEAD across redirects', async () => {
    const before = site.seen.length;
    await get('/chain/2', { method: 'HEAD' });
    assert.deepEqual(
      site.seen.slice(before).map((r) => r.method),
      ['HEAD', 'HEAD', 'HEAD'],
    );
  });
});

describe('headers', () => {
  test('sends the User-Agent and the encodings it can decode', async () => {
    const sent = JSON.parse((await get('/headers')).body.toString());
    assert.equal(sent['user-agent'], 'FetchdownTest/1.0');
    assert.equal(sent['accept-encoding'], 'gzip, deflate, br');
  });

  test('caller headers are added and override the defaults, whatever their case', async () => {
    const sent = JSON.parse(
      (
        await get('/headers', {
          headers: { Accept: 'text/markdown', 'Accept-Encoding': 'identity', 'User-Agent': 'Other' },
        })
      ).body.toString(),
    );
    assert.equal(sent.accept, 'text/markdown');
    assert.equal(sent['accept-encoding'], 'identity');
    assert.equal(sent['user-agent'], 'Other');
  });

  test('response headers have lower-case names and repeated ones joined', async () => {
    const response = await get('/headers');
    assert.equal(response.headers['x-multi'], 'a, b');
    assert.equal(response.headers['content-type'], 'text/plain');
  });
});

describe('connections', () => {
  test('maxConnectionsPerOrigin caps parallel sockets to one site', async (t) => {
    let inFlight = 0;
    let most = 0;
    const slow = await startLoopback((_req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.end('done');
      }, 50);
    });
    t.after(() => slow.close());
    const capped = createSafeClient({
      allowPrivateNetworks: true,
      timeoutMs: 2000,
      maxBytes: 1024,
      maxRedirects: 0,
      userAgent: 'x',
      maxConnectionsPerOrigin: 1,
    });
    t.after(() => capped.close());
    const outcomes = await Promise.all([1, 2, 3].map(() => capped.request(new URL(slow.url('/')))));
    assert.ok(outcomes.every((o) => o.ok));
    assert.equal(most, 1);
  });
});

describe('HEAD', () => {
  test('returns headers and no body', async () => {
    const response = await get('/head', { method: 'HEAD' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-length'], '1234');
    assert.equal(response.body.length, 0);
    assert.equal(response.bytes, 0);
    assert.equal(response.bodyTruncated, false);
    assert.equal(site.seen.at(-1)?.method, 'HEAD');
  });
});
