// The links a crawl follows from a page, and the page's canonical URL: read from the HTML as a stream of tags
// (htmlparser2's Parser), without building a document.
import { Parser } from 'htmlparser2';
import { normalizeCrawlUrl } from './urls.js';

export interface PageLinks {
  /** Each http(s) link once, in document order, normalised by normalizeCrawlUrl, with its first non-empty text. */
  links: { url: string; title?: string }[];
  /** `<link rel=canonical>`'s URL, normalised. */
  canonical?: string;
}

const MAX_TITLE_LENGTH = 200;
/** Elements whose text is not a link's visible text. */
const HIDDEN_TEXT = new Set(['script', 'style', 'template']);

/** `<base href>` resolved against the page's URL, or null when it is not a URL. */
function resolvedBase(href: string, base: string): string | null {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return null;
  }
}

function titleOf(text: string): string | undefined {
  let title = text.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_LENGTH);
  // Do not leave half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(title)) title = title.slice(0, -1);
  return title === '' ? undefined : title;
}

/**
 * The page's links (`<a href>`, rel=nofollow included: it asks not to pass ranking, not to avoid the page) and its
 * canonical URL, resolved against the first `<base href>` (itself resolved against `base`, the page's URL), which
 * applies to the whole document, links before it included: so hrefs are kept as written until the end.
 */
export function linksFromHtml(html: string, base: string): PageLinks {
  const anchors: { href: string; text: string }[] = [];
  let canonical: string | undefined;
  let baseHref: string | undefined;
  let open: { href: string; text: string } | null = null;
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (HIDDEN_TEXT.has(name)) hidden++;
        else if (name === 'base' && baseHref === undefined && attributes.href !== undefined) baseHref = attributes.href;
        else if (name === 'link' && canonical === undefined && attributes.href !== undefined) {
          const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
          if (rel.includes('canonical')) canonical = attributes.href;
        } else if (name === 'a') {
          open = attributes.href === undefined ? null : { href: attributes.href, text: '' };
          if (open) anchors.push(open);
        } else if (name === 'img' && open && attributes.alt) open.text += ` ${attributes.alt} `; // an image link's name
      },
      ontext(text) {
        // The text is cut to MAX_TITLE_LENGTH later; collecting a little more leaves room for collapsed spaces.
        if (open && hidden === 0 && open.text.length < MAX_TITLE_LENGTH * 4) open.text += text;
      },
      onclosetag(name) {
        if (HIDDEN_TEXT.has(name)) hidden--;
        else if (name === 'a') open = null;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);

  const documentBase = (baseHref === undefined ? null : resolvedBase(baseHref, base)) ?? base;
  const links = new Map<string, string | undefined>();
  for (const { href, text } of anchors) {
    const url = normalizeCrawlUrl(href.trim(), documentBase);
    if (url === null) continue;
    const title = titleOf(text);
    if (!links.has(url) || (links.get(url) === undefined && title !== undefined)) links.set(url, title);
  }
  const canonicalUrl = canonical === undefined ? null : normalizeCrawlUrl(canonical.trim(), documentBase);
  return {
    links: [...links].map(([url, title]) => (title === undefined ? { url } : { url, title })),
    ...(canonicalUrl === null ? {} : { canonical: canonicalUrl }),
  };
}
