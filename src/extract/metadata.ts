// Page metadata read from the document head before extraction changes the document: title, description, language,
// and the base URL that relative links resolve against.

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  baseUrl: string;
}

const TITLE_META = ['og:title', 'twitter:title'];
const DESCRIPTION_META = ['description', 'og:description', 'twitter:description'];

function collapse(value: string | null | undefined): string | null {
  const text = (value ?? '').replace(/[\s\uFEFF]+/g, ' ').trim();
  return text === '' ? null : text;
}

/** One pass over the head (a document-wide selector walks every node of a large page, once per selector). */
function readHead(doc: Document): { meta: Map<string, string>; title: string | null; base: string | null } {
  const meta = new Map<string, string>();
  let title: string | null = null;
  let base: string | null = null;
  for (const el of Array.from(doc.head?.children ?? [])) {
    const tag = el.tagName;
    if (tag === 'META') {
      const name = (el.getAttribute('property') ?? el.getAttribute('name') ?? el.getAttribute('http-equiv') ?? '').toLowerCase();
      const content = collapse(el.getAttribute('content'));
      if (name && content && !meta.has(name)) meta.set(name, content);
    } else if (tag === 'TITLE') title ??= collapse(el.textContent);
    else if (tag === 'BASE') base ??= el.getAttribute('href');
  }
  return { meta, title, base };
}

function firstOf(meta: Map<string, string>, names: string[]): string | null {
  for (const name of names) {
    const value = meta.get(name);
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

export function readMetadata(doc: Document, pageUrl: string): PageMetadata {
  const head = readHead(doc);
  const root = doc.documentElement;
  const language = collapse(root?.getAttribute('lang')) ?? collapse(root?.getAttribute('xml:lang')) ?? head.meta.get('content-language');
  return {
    title: firstOf(head.meta, TITLE_META) ?? soleHeading(doc) ?? trimSiteName(head.title),
    description: firstOf(head.meta, DESCRIPTION_META),
    // Content-Language may list several; the first is the main one.
    language: language?.split(',')[0]?.trim() || null,
    baseUrl: resolveBaseUrl(head.base, pageUrl),
  };
}
