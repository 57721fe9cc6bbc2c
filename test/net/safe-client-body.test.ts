// Bodies: gzip/deflate/br decoded by us, cut at maxBytes of decoded output, a compression bomb kept small, and a
// buffered body read without holding the event loop.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { readBody } from '../../src/net/read-body.js';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.js';
import { startLoopback, type Loopback } from './loopback.js';

const TEXT = 'Tomatoes need six hours of sun. '.repeat(2000); // 64 000 bytes
const MAX_BYTES = 16 * 1024;
const MB = 1024 * 1024;

/** 50 MB of zeros gzipped (about 50 KB), built chunk by chunk so the test itself never holds 50 MB. */
async function gzipBomb(megabytes: number): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const zeros = Buffer.alloc(MB);
  for (let i = 0; i < megabytes; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(parts);
}

/** Writes `chunk` `times` times with backpressure; reports on close whether the client hung up before the end. */
function streamRepeated(res: ServerResponse, chunk: Buffer, times: number, report: (early: boolean) => void): void {
  res.on('close', () => report(!res.writableFinished));
  let sent = 0;
  const pump = () => {
    while (sent < times) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

let site: Loopback;
let client: SafeClient;
let bomb: Buffer;
let bigBodyClosedEarly: Promise<boolean>;
let bombClosedEarly: Promise<boolean>;
before(async () => {
  bomb = await gzipBomb(50);
  let reportClose: (early: boolean) => void = () => {};
  bigBodyClosedEarly = new Promise((resolve) => (reportClose = resolve));
  let reportBombClose: (early: boolean) => void = () => {};
  bombClosedEarly = new Promise((resolve) => (reportBombClose = resolve));
  const encoded: Record<string, [string, Buffer]> = {
    '/gzip': ['gzip', zlib.gzipSync(TEXT)],
    '/x-gzip': ['x-gzip', zlib.gzipSync(TEXT)],
    '/deflate': ['deflate', zlib.deflateSync(TEXT)],
    '/deflate-raw': ['deflate', zlib.deflateRawSync(TEXT)],
    '/br': ['br', zlib.brotliCompressSync(TEXT)],
    '/gzip-then-br': ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(TEXT))],
    '/cut-gzip': ['gzip', zlib.gzipSync(TEXT).subarray(0, 200)],
    '/zstd': ['zstd', Buffer.from('not really zstd')],
  };
  site = await startLoopback((req, res) => {
    const path = req.url ?? '/';
    const entry = encoded[path];
    if (entry) {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': entry[0] });
      res.end(entry[1]);
    } else if (path === '/plain') {
      res.end(TEXT);
    } else if (path === '/exact') {
      res.end('y'.repeat(MAX_BYTES));
    } else if (path === '/empty-gzip') {
      res.writeHead(204, { 'content-encoding': 'gzip' });
      res.end();
    } else if (path === '/bomb') {
      // The bomb's gzip member 800 times (40 MB on the wire, 40 GB inflated): more than the sockets' buffers hold,
      // so only a client that reads (and inflates) it all lets the server finish.
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      streamRepeated(res, bomb, 800, reportBombClose);
    } else if (path === '/big') {
      // 20 MB streamed with backpressure: if the client hangs up after maxBytes, the server never finishes.
      streamRepeated(res, Buffer.alloc(64 * 1024, 'z'), 320, reportClose);
    } else res.end('?');
  });
  client = createSafeClient({
    allowPrivateNetworks: true,
    timeoutMs: 5000,
    maxBytes: MAX_BYTES,
    maxRedirects: 3,
    userAgent: 'FetchdownTest/1.0',
  });
});
after(async () => {
  await client.close();
  await site.close();
});

async function get(path: string, maxBytes?: number) {
  const outcome = await client.request(new URL(site.url(path)), { maxBytes });
  assert.ok(outcome.ok, JSON.stringify(!outcome.ok && outcome.failure));
  return outcome.response;
}

describe('content encodings', () => {
  for (const path of ['/gzip', '/x-gzip', '/deflate', '/deflate-raw', '/br', '/gzip-then-br']) {
    test(`${path} is decoded`, async () => {
      const response = await get(path, TEXT.length);
      assert.equal(response.body.toString(), TEXT);
      assert.equal(response.bytes, TEXT.length);
      assert.equal(response.bodyTruncated, false);
    });
  }

  test('an empty body with an encoding stays empty', async () => {
    const response = await get('/empty-gzip');
    assert.equal(response.status, 204);
    assert.equal(response.body.length, 0);
  });

  test('a gzip stream cut short yields what arrived, as browsers show it', async () => {
    const response = await get('/cut-gzip', TEXT.length);
    assert.ok(response.body.length > 0);
    assert.ok(TEXT.startsWith(response.body.toString()));
  });

  test('an encoding we did not offer is unsupported_content', async () => {
    const outcome = await client.request(new URL(site.url('/zstd')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.code, 'unsupported_content');
    assert.match(outcome.failure.detail, /zstd/);
  });
});

describe('maxBytes', () => {
  test('a plain body is cut at maxBytes and marked truncated', async () => {
    const response = await get('/plain');
    assert.equal(response.body.length, MAX_BYTES);
    assert.equal(response.bytes, MAX_BYTES);
    assert.equal(response.bodyTruncated, true);
    assert.equal(response.body.toString(), TEXT.slice(0, MAX_BYTES));
  });

  test('a body of exactly maxBytes is not truncated', async () => {
    const response = await get('/exact');
    assert.equal(response.body.length, MAX_BYTES);
    assert.equal(response.bodyTruncated, false);
  });

  test('the limit counts decoded bytes, and a request may set its own', async () => {
    const response = await get('/gzip', 1000);
    assert.equal(response.body.toString(), TEXT.slice(0, 1000));
    assert.equal(response.bodyTruncated, true);
  });

  test('after the limit the connection is dropped, not drained', async () => {
    const response = await get('/big', MB);
    assert.equal(response.body.length, MB);
    assert.equal(response.bodyTruncated, true);
    assert.equal(await bigBodyClosedEarly, true, 'the server saw the client hang up before it finished');
  });

  test('a gzip bomb (40 GB inflated) gives at most maxBytes, is dropped early, and memory stays bounded', async () => {
    assert.ok(bomb.length < MB, `each member is ${bomb.length} bytes compressed`);
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 1);
    const response = await get('/bomb', MB);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    assert.equal(response.body.length, MB);
    assert.ok(response.body.every((b) => b === 0));
    assert.equal(response.bodyTruncated, true);
    // Inflating a whole member would hold 50 MB; reading 1 MB plus zlib's buffers stays far below that.
    assert.ok(peak - baseline < 16 * MB, `external memory grew by ${((peak - baseline) / MB).toFixed(1)} MB`);
    assert.equal(await bombClosedEarly, true, 'the client hung up before the server had sent the whole bomb');
  });
});

describe('maxWireBytes', () => {
  const wire = (path: string, maxWireBytes: number) =>
    client.request(new URL(site.url(path)), { maxBytes: TEXT.length, maxWireBytes });

  test('a compressed body within the limit is read whole, its size as sent counted', async () => {
    const gzipped = zlib.gzipSync(TEXT).length;
    const outcome = await wire('/gzip', gzipped);
    assert.ok(outcome.ok);
    assert.equal(outcome.response.body.toString(), TEXT);
    assert.equal(outcome.response.wireBytes, gzipped);
    assert.equal(outcome.response.bodyTruncated, false);
  });

  test('past the limit, what the bytes read decode to, marked truncated', async () => {
    const outcome = await wire('/gzip', 100);
    assert.ok(outcome.ok);
    assert.equal(outcome.response.wireBytes, 100);
    assert.equal(outcome.response.bodyTruncated, true);
    assert.ok(TEXT.startsWith(outcome.response.body.toString()));
  });

  test('a plain body is cut at the limit as sent', async () => {
    const outcome = await wire('/plain', 1000);
    assert.ok(outcome.ok);
    assert.equal(outcome.response.body.toString(), TEXT.slice(0, 1000));
    assert.equal(outcome.response.wireBytes, 1000);
    assert.equal(outcome.response.bodyTruncated, true);
  });
});

describe('a body already buffered', () => {
  test('is read with turns of the event loop between its megabytes, so other requests are served meanwhile', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i)); // 4 MB, all there at once
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const read = await readBody(Readable.from(chunks), [], 8 * MB);
    ticking = false;
    assert.equal(read.body.length, 4 * MB);
    assert.equal(read.body[5 * 64 * 1024], 5);
    assert.ok(turns >= 3, `${turns} turns of the event loop while 4 MB were read`);
  });
});
