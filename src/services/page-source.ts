// A page's HTML, kept beside its cached copy so that selections are made without fetching it again. Compressed on
// libuv's pool, off the event loop, with brotli at quality 1: on the 181 benchmark pages 4.7× smaller for 3.6 ms of
// CPU per MB (gzip -1: 4.4× for 8.7 ms; gzip -6: 5.1× for 16 ms), so the copy that was most of the cache's bytes, and
// of its synchronous SQLite writes, becomes a small part of them.
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);
const FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };

/** `pageStoredAt` ties the HTML to the copy it was extracted into. Base64, as every cache backend stores JSON. */
export interface StoredHtml {
  brotli: string;
  pageStoredAt: number;
}

/** A key of its own (the `html:` entries of older versions held it uncompressed and are left to expire). */
export const sourceKey = (pageKey: string) => `html.br:${pageKey}`;

export async function packHtml(html: string, pageStoredAt: number): Promise<StoredHtml> {
  return { brotli: (await compress(html, FAST)).toString('base64'), pageStoredAt };
}

export async function unpackHtml(stored: StoredHtml): Promise<string> {
  return (await decompress(Buffer.from(stored.brotli, 'base64'))).toString('utf8');
}
