// The form of a URL a crawl dedupes on, and the URL shapes that signal a crawler trap. Unlike the cache key
// (src/net/normalize-url.ts), which keeps a request exactly as asked, this form folds spellings a site almost always
// answers alike into one, so one page is fetched once.

/**
 * Parameters that say where a visitor came from, never what the page is: utm_* (Google Analytics campaigns), click
 * ids (Google, Facebook, Microsoft, Yandex, Instagram), Mailchimp's campaign and member ids, Google's linker (_ga) and
 * Twitter's ref_src. Compared lower-cased.
 */
const TRACKING_PARAMETERS = new Set([
  'gclid',
  'fbclid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  '_ga',
  'ref_src',
  'yclid',
  'igshid',
]);

function parameterName(pair: string): string {
  const raw = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw; // malformed escapes: compare as written
  }
}

function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMETERS.has(lower);
}

/**
 * The crawl's form of `href` (resolved against `base`), or null when it is not an http(s) URL (javascript:, mailto:,
 * tel:, data:, malformed). The WHATWG parser lower-cases scheme and host and drops the default port (80, 443).
 */
export function normalizeCrawlUrl(href: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // The fragment is never sent to the server; userinfo is never sent by the guarded client either, and a crawl's
  // results must not carry credentials.
  url.hash = '';
  url.username = '';
  url.password = '';
  // The query is edited as written (not through URLSearchParams, which would turn `?flag` into `?flag=` and re-encode
  // values): tracking parameters go, the rest are sorted by name (a stable sort keeps repeated names in their order,
  // which can matter), and an empty `?` goes with them.
  const pairs = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => ({ pair, name: parameterName(pair) }))
    .filter(({ name }) => !isTracking(name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  url.search = pairs.map(({ pair }) => pair).join('&');
  // `/docs/` and `/docs` are one page on nearly every site (the other spelling redirects); `/` stays, being the only
  // spelling of the root.
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  return url.href;
}

/** Origin and path without the query: the key under which a crawl counts a path's query-string variants. */
export function pathKey(url: string): string {
  const parsed = new URL(url);
  return parsed.origin + parsed.pathname;
}

/**
 * True when a path segment occurs more than `max` times (`/a/b/a/b/a/b` with max 2): the shape relative links that
 * loop produce, each page linking one level deeper into the same pages.
 */
export function segmentsRepeat(url: string, max: number): boolean {
  const counts = new Map<string, number>();
  for (const segment of new URL(url).pathname.split('/')) {
    if (segment === '') continue;
    const count = (counts.get(segment) ?? 0) + 1;
    if (count > max) return true;
    counts.set(segment, count);
  }
  return false;
}
