// Content negotiation on the Accept header: whether a media type is acceptable, read as a list of media ranges with
// their q values (RFC 9110 §12.5.1), not by looking for a substring.

/** True when `accept` lists `type` (or its `type/*`) with q > 0; `*\/*` counts only when `wildcard` is true. */
export function acceptsMedia(accept: string | undefined, type: string, wildcard = false): boolean {
  if (!accept) return false;
  const [major] = type.split('/');
  for (const range of accept.split(',')) {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (media === type || media === `${major}/*` || (wildcard && media === '*/*')) return true;
  }
  return false;
}
