// The cache key form of a URL: two spellings of the same request map to one key.
/**
 * Lower-cases scheme and host and drops the default port (the WHATWG parser does both), drops the fragment (never
 * sent to the server) and userinfo (the safe client never sends it, so it cannot change the answer, and keys must
 * not hold credentials). Path and query stay as written: their order and case can matter to the site.
 * Throws TypeError on a string that is not an absolute URL; callers validate URLs before asking for a key.
 */
export function normalizeUrl(input: string | URL): string {
  const url = new URL(input);
  url.hash = '';
  url.username = '';
  url.password = '';
  return url.href;
}
