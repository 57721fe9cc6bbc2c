// Page metadata read before extraction changes the document: title, description, language, the base URL that
// relative links resolve against, and the details (author, date, site, canonical URL, image) from JSON-LD, the
// head's meta and link elements, and, for author and date only, microdata and the byline in the body.
import { normaliseDate } from './dates.js';
import { decodeEntities } from '../formats/inline.js';
import { readJsonLd } from './jsonld.js';

/** What a page says about itself beyond its title; null when it does not say (or says it unusably). */
export interface PageDetails {
  author: string | null;
  /** ISO 8601: a date, or a date and time with the page's offset when it gives one (dates.ts). */
  publishedAt: string | null;
  siteName: string | null;
  canonicalUrl: string | null;
  image: string | null;
}

export const NO_DETAILS: PageDetails = {
  author: null,
  publishedAt: null,
  siteName: null,
  canonicalUrl: null,
  image: null,
};

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  baseUrl: string;
  details: PageDetails;
}

const TITLE_META = ['og:title', 'twitter:title'];
const DESCRIPTION_META = ['description', 'og:description', 'twitter:description'];
const AUTHOR_META = ['author', 'article:author', 'citation_author', 'dc.creator', 'dcterms.creator'];
const DATE_META = [
  'article:published_time',
  'citation_publication_date',
  'citation_date',
  'dc.date',
  'dcterms.date',
  'dc.date.issued',
  'dcterms.issued',
  'date',
];
const IMAGE_META = ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'];

const MAX_NAME_CHARS = 300;
const MAX_URL_CHARS = 2083;

function collapse(value: string | null | undefined): string | null {
  const text = (value ?? '').replace(/[\s\uFEFF]+/g, ' ').trim();
  return text === '' ? null : text;
}

/** Cut at a word before `max` characters: a name list or site name that long is someone's mistake, not a name. */
function bound(text: string | null, max: number): string | null {
  return text && text.length > max ? `${text.slice(0, max - 1).replace(/[\s,;]+\S*$/, '')}…` : text;
}

interface Head {
  /** Every value of each meta name (property, name or http-equiv), lower-cased, in page order. */
  meta: Map<string, string[]>;
  title: string | null;
  base: string | null;
  canonical: string | null;
}

/** One pass over the head (a document-wide selector walks every node of a large page, once per selector). */
function readHead(doc: Document): Head {
  const meta = new Map<string, string[]>();
  let title: string | null = null;
  let base: string | null = null;
  let canonical: string | null = null;
  for (const el of Array.from(doc.head?.children ?? [])) {
    const tag = el.tagName;
    if (tag === 'META') {
      const name = (
        el.getAttribute('property') ??
        el.getAttribute('name') ??
        el.getAttribute('http-equiv') ??
        ''
      ).toLowerCase();
      const content = collapse(el.getAttribute('content'));
      if (!name || !content) continue;
      const values = meta.get(name);
      if (!values) meta.set(name, [content]);
      else if (values.length < 50) values.push(content);
    } else if (tag === 'TITLE') title ??= collapse(el.textContent);
    else if (tag === 'BASE') base ??= el.getAttribute('href');
    else if (tag === 'LINK' && /(?:^|\s)canonical(?:\s|$)/i.test(el.getAttribute('rel') ?? ''))
      canonical ??= el.getAttribute('href');
  }
  return { meta, title, base, canonical };
}

function firstOf(meta: Map<string, string[]>, names: string[]): string | null {
  for (const name of names) {
    const value = meta.get(name)?.[0];
    if (value) return value;
  }
  return null;
}

/** A <base href> changes what relative URLs mean; an unusable one is ignored, as browsers do. */
function resolveBaseUrl(base: string | null, pageUrl: string): string {
  if (!base) return pageUrl;
  try {
    return new URL(base, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/** An http(s) URL made absolute; anything else (javascript:, data:, unparsable, absurdly long) is no URL. */
function absoluteUrl(value: string | null | undefined, baseUrl: string): string | null {
  const text = value?.trim();
  if (!text || text.length > MAX_URL_CHARS) return null;
  try {
    const url = new URL(text, baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * One person's or organisation's name, or null for what is not one: a profile URL, an empty or sentence-long byline.
 */
function personName(value: string | null | undefined): string | null {
  const name = collapse(value)
    ?.replace(/^by\b:?\s*/i, '')
    .split(/\s[|·•]\s/)[0]
    ?.trim();
  if (!name || name.length > 100 || /^(?:https?:|www\.)/i.test(name) || !/\p{L}/u.test(name)) return null;
  return name;
}

/** Several authors → "A, B, C", each once. */
function joinNames(values: readonly string[]): string | null {
  const names = [...new Set(values.map(personName).filter((name) => name !== null))];
  return bound(names.join(', ') || null, MAX_NAME_CHARS);
}

/** Microdata, byline and <time> elements: author and date where JSON-LD and the head say nothing. */
const BODY_HINTS =
  '[itemprop~="author"], [itemprop~="datePublished"], time[datetime], [rel~="author"], ' +
  '[class*="byline" i], [class*="author" i]';
const BYLINE = '[class*="byline" i], [class*="author" i]';
/** Wrappers that a class such as `author-archive` may name: their text is the whole page, not a byline. */
const PAGE_WRAPPERS = new Set(['HTML', 'BODY', 'MAIN', 'ARTICLE']);
/** Comments have authors and dates of their own, and a comment form its "Name (required)": not the page's. */
const COMMENTS = '[class*="comment" i], [id*="comment" i]';
const BLOCKS = new Set(['BR', 'DIV', 'P', 'UL', 'OL', 'LI', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'SECTION']);

/**
 * A byline's text with its lines apart and its <time> left out, as a reader sees it: "by Jeff Foust<br><span>Monday…"
 * is "by Jeff Foust · Monday…", not "by Jeff FoustMonday…".
 */
function bylineText(el: Element): string {
  let text = '';
  for (const node of Array.from(el.childNodes)) {
    if (node.nodeName === 'TIME') continue;
    text += BLOCKS.has(node.nodeName) ? ` · ${node.textContent ?? ''} · ` : (node.textContent ?? '');
  }
  return text.replace(/^[\s·]+/, '');
}

/** One walk of the document, in order of trust: microdata, then rel=author, then byline text; <time> for the date. */
function readBody(doc: Document): { author: string | null; publishedAt: string | null } {
  let itempropAuthor: string | null = null;
  let itempropDate: string | null = null;
  let relAuthor: string | null = null;
  let byline: { el: Element; name: string } | null = null;
  let timeDate: string | null = null;
  for (const el of Array.from(doc.querySelectorAll(BODY_HINTS))) {
    if (el.closest(COMMENTS)) continue;
    const itemprop = ` ${el.getAttribute('itemprop') ?? ''} `;
    if (itemprop.includes(' datePublished ')) {
      itempropDate ??= normaliseDate(el.getAttribute('content') ?? el.getAttribute('datetime') ?? el.textContent);
    }
    if (el.tagName === 'TIME' && (el.hasAttribute('pubdate') || el.closest(`article, ${BYLINE}`))) {
      timeDate ??= normaliseDate(el.getAttribute('datetime'));
    }
    if (itemprop.includes(' author ') && !itempropAuthor) {
      const named = el.querySelector('[itemprop~="name"]') ?? el;
      itempropAuthor = personName(named.getAttribute('content') ?? named.textContent);
    }
    if (/(?:^|\s)author(?:\s|$)/i.test(el.getAttribute('rel') ?? '')) relAuthor ??= personName(el.textContent);
    // A byline element inside the byline chosen so far (`.byline > .byline__name`) names the author more exactly.
    else if ((!byline || byline.el.contains(el)) && !PAGE_WRAPPERS.has(el.tagName) && el.matches(BYLINE)) {
      const name = personName(bylineText(el));
      if (name) byline = { el, name };
    }
  }
  return { author: itempropAuthor ?? relAuthor ?? byline?.name ?? null, publishedAt: itempropDate ?? timeDate };
}

/** Each detail from the most trusted source that has it: JSON-LD, then meta and link elements, then the body. */
function readDetails(doc: Document, head: Head, jsonLd: readonly string[], baseUrl: string): PageDetails {
  const facts = readJsonLd(jsonLd);
  const decoded = (value: string | null) => (value === null ? null : decodeEntities(value));
  let author = joinNames(facts.author.map(decodeEntities));
  for (const name of AUTHOR_META) author ??= joinNames(head.meta.get(name) ?? []);
  let publishedAt = normaliseDate(facts.datePublished);
  for (const name of DATE_META) publishedAt ??= normaliseDate(head.meta.get(name)?.[0]);
  if (author === null || publishedAt === null) {
    const body = readBody(doc);
    author ??= body.author;
    publishedAt ??= body.publishedAt;
  }
  return {
    author,
    publishedAt,
    siteName: bound(collapse(decoded(facts.publisher)) ?? firstOf(head.meta, ['og:site_name']), MAX_NAME_CHARS),
    canonicalUrl: absoluteUrl(head.canonical, baseUrl) ?? absoluteUrl(firstOf(head.meta, ['og:url']), baseUrl),
    image: absoluteUrl(decoded(facts.image), baseUrl) ?? absoluteUrl(firstOf(head.meta, IMAGE_META), baseUrl),
  };
}

/** The page's one <h1>: the headline as the page shows it. Several h1s are usually section or widget titles. */
function soleHeading(doc: Document): string | null {
  const headings = doc.querySelectorAll('h1');
  return headings.length === 1 ? collapse(headings[0]?.textContent) : null;
}

/** "Headline | Site Name" → "Headline": the last separated part is dropped when what stays is still a real title. */
function trimSiteName(title: string | null): string | null {
  const match = title ? /^(.{12,}?)\s+[|–—·•-]\s+[^|–—·•]{2,40}$/.exec(title) : null;
  return match?.[1] ?? title;
}

/** `jsonLd`: the text of the page's <script type="application/ld+json"> blocks, which parse.ts cut from the HTML. */
export function readMetadata(doc: Document, pageUrl: string, jsonLd: readonly string[] = []): PageMetadata {
  const head = readHead(doc);
  const root = doc.documentElement;
  const language =
    collapse(root?.getAttribute('lang')) ??
    collapse(root?.getAttribute('xml:lang')) ??
    head.meta.get('content-language')?.[0];
  const baseUrl = resolveBaseUrl(head.base, pageUrl);
  return {
    title: firstOf(head.meta, TITLE_META) ?? soleHeading(doc) ?? trimSiteName(head.title),
    description: firstOf(head.meta, DESCRIPTION_META),
    // Content-Language may list several; the first is the main one.
    language: language?.split(',')[0]?.trim() || null,
    baseUrl,
    details: readDetails(doc, head, jsonLd, baseUrl),
  };
}
