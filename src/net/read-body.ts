// Reads a response body through its Content-Encoding decoders and stops at a byte limit of DECODED output,
// so a small compressed "bomb" cannot inflate into memory: zlib streams only decode as fast as we pull.
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';

export interface ReadBody {
  body: Buffer;
  /** Cut at either limit: more body followed. */
  truncated: boolean;
  /** Bytes taken from the wire (before decoding). */
  wireBytes: number;
}

/** Raised when the response uses an encoding we did not offer; the client reports it as unsupported content. */
export class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content-encoding ${encoding}`);
  }
}

/** Decoded bytes read between two turns of the event loop. */
const YIELD_EVERY_BYTES = 1024 * 1024;

// Sync flush, as browsers do, so a body cut short by the server still yields what arrived instead of an error.
const ZLIB_LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** "deflate" is meant to be zlib-wrapped (RFC 1950) but some servers send raw deflate; the first two bytes tell. */
function hasZlibHeader(first: Buffer): boolean {
  const cmf = first[0];
  const flg = first[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && (cmf * 256 + flg) % 31 === 0;
}

function createDecoder(encoding: string, first: Buffer): NodeJS.ReadWriteStream {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(ZLIB_LENIENT);
    case 'deflate':
      return hasZlibHeader(first) ? zlib.createInflate(ZLIB_LENIENT) : zlib.createInflateRaw(ZLIB_LENIENT);
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_LENIENT);
    default:
      throw new UnsupportedEncodingError(encoding);
  }
}

async function* prepend(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/** One decoding layer, pulled on demand; an empty body stays empty (no "unexpected end of file" for 204s). */
async function* decodeLayer(source: AsyncIterable<Buffer>, encoding: string): AsyncGenerator<Buffer> {
  const chunks = source[Symbol.asyncIterator]();
  const first = await chunks.next();
  if (first.done) return;
  const decoder = createDecoder(encoding, first.value);
  // pipeline forwards errors and destroys both ends when we stop early; errors surface through iteration below.
  const decoded = pipeline(Readable.from(prepend(first.value, chunks)), decoder, () => {});
  for await (const chunk of decoded) yield chunk as Buffer;
}

/** Content-Encoding lists codings in the order applied, so they are undone from last to first. */
export function parseEncodings(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity')
    .reverse();
}

/** The raw chunks up to `limit` bytes, counted in `wire`; a chunk arriving past the limit marks it cut. */
async function* upTo(raw: Readable, limit: number, wire: { bytes: number; cut: boolean }): AsyncGenerator<Buffer> {
  for await (const chunk of raw as AsyncIterable<Buffer>) {
    if (chunk.length === 0) continue;
    const room = limit - wire.bytes;
    if (room <= 0 || chunk.length > room) {
      wire.cut = true;
      if (room > 0) {
        wire.bytes += room;
        yield chunk.subarray(0, room);
      }
      return;
    }
    wire.bytes += chunk.length;
    yield chunk;
  }
}

/**
 * Reads at most `maxBytes` decoded bytes from `raw`, of at most `maxWireBytes` bytes as sent (a compressed page's
 * first bytes decode to a far larger prefix). Stopping early ends the iteration, which destroys the decoders and the
 * raw stream (and with it the connection), so nothing more is downloaded. A body cut on the wire yields what its
 * first bytes decode to.
 */
export async function readBody(
  raw: Readable,
  encodings: string[],
  maxBytes: number,
  maxWireBytes = Infinity,
): Promise<ReadBody> {
  const wire = { bytes: 0, cut: false };
  let decoded: AsyncIterable<Buffer> = upTo(raw, maxWireBytes, wire);
  for (const encoding of encodings) decoded = decodeLayer(decoded, encoding);
  const parts: Buffer[] = [];
  let size = 0;
  let sinceYield = 0;
  try {
    for await (const chunk of decoded) {
      if (size + chunk.length > maxBytes) {
        parts.push(chunk.subarray(0, maxBytes - size));
        return { body: Buffer.concat(parts, maxBytes), truncated: true, wireBytes: wire.bytes };
      }
      parts.push(chunk);
      size += chunk.length;
      // A body that is already in the socket's buffer is read, parsed and decoded in microtasks alone; without a
      // turn of the event loop now and then, a 10 MB page held every other request on the process for ~90 ms.
      sinceYield += chunk.length;
      if (sinceYield >= YIELD_EVERY_BYTES) {
        sinceYield = 0;
        await new Promise(setImmediate);
      }
    }
    return { body: Buffer.concat(parts, size), truncated: wire.cut, wireBytes: wire.bytes };
  } finally {
    raw.destroy();
  }
}
