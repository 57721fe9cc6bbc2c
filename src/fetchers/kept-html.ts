// The HTML a page was extracted from, kept so that selections (include, exclude) are made later without fetching it
// again. Compressed where it was decoded, on the extraction thread, so neither the string nor its compression crosses
// the event loop: brotli at quality 1, on the 181 benchmark pages 4.7× smaller for 3.6 ms of CPU per MB (gzip -1:
// 4.4× for 8.7 ms; gzip -6: 5.1× for 16 ms).
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

const FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };

export function packHtml(html: string): Uint8Array {
  return brotliCompressSync(html, FAST);
}

export function unpackHtml(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString('utf8');
}
