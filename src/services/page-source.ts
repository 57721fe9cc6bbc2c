// A page's HTML, kept beside its cached copy so that selections are made without fetching it again: the bytes the
// extraction thread compressed (fetchers/kept-html.ts), stored as base64, as every cache backend stores JSON.

/** `pageStoredAt` ties the HTML to the copy it was extracted into. */
export interface StoredHtml {
  brotli: string;
  pageStoredAt: number;
}

/** A key of its own (the `html:` entries of older versions held it uncompressed and are left to expire). */
export const sourceKey = (pageKey: string) => `html.br:${pageKey}`;

export function storeHtml(htmlBrotli: Uint8Array, pageStoredAt: number): StoredHtml {
  return {
    brotli: Buffer.from(htmlBrotli.buffer, htmlBrotli.byteOffset, htmlBrotli.byteLength).toString('base64'),
    pageStoredAt,
  };
}

export function storedHtmlBytes(stored: StoredHtml): Uint8Array {
  return Buffer.from(stored.brotli, 'base64');
}
