// RSS 2.0, RSS 1.0 (RDF) and Atom → Markdown: the feed's title and description, then each item as
// `## [title](link)` with its date (ISO 8601), its author and its summary (or its content when it has no summary).
// Summaries are HTML (RSS escapes it, the XML decoding undoes that once) and go through the web pages' converter.
import { convertToMarkdown } from '../../extract/markdown/markdown.js';
import type { DocumentText, DocumentType } from './types.js';
import { elements, escapeHtml, firstElement, innerHtml, lineOf, parseXml, textOf, type XmlElement } from './xml.js';

interface Item {
  title: string | null;
  link: string | null;
  date: string | null;
  author: string | null;
  /** The summary as HTML. */
  html: string;
}

/**
 * The child named `local` without a prefix (RSS's and Atom's own elements), else one with any prefix (`dc:date`):
 * an RSS channel's `atom:link` is not its link.
 */
function field(parent: XmlElement, local: string): XmlElement | undefined {
  const named = elements(parent, local);
  return named.find((element) => element.name === local) ?? named[0];
}

const fieldLine = (parent: XmlElement, ...locals: string[]) =>
  locals.map((local) => lineOf(field(parent, local))).find((line) => line !== null) ?? null;

/** A date as ISO 8601 when it can be read as one (RFC 822 in RSS, RFC 3339 in Atom), else as written. */
function isoDate(text: string | null): string | null {
  if (!text) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}

/** An Atom text construct as HTML: `text` (the default) escaped, `html` as it is, `xhtml` from its div. */
function atomHtml(element: XmlElement | undefined): string {
  if (!element) return '';
  switch (element.attributes.type) {
    case 'html':
      return textOf(element);
    case 'xhtml':
      return innerHtml(firstElement(element, 'div') ?? element);
    default:
      return escapeHtml(textOf(element));
  }
}

function atomLink(entry: XmlElement): string | null {
  const links = elements(entry, 'link');
  const alternate = links.find((link) => (link.attributes.rel ?? 'alternate') === 'alternate') ?? links[0];
  return alternate?.attributes.href?.trim() || null;
}

function atomItem(entry: XmlElement): Item {
  return {
    title: fieldLine(entry, 'title'),
    link: atomLink(entry),
    date: isoDate(fieldLine(entry, 'published', 'updated')),
    author: fieldLine(field(entry, 'author') ?? entry, 'name'),
    html: atomHtml(field(entry, 'summary') ?? field(entry, 'content')),
  };
}

function rssItem(item: XmlElement): Item {
  const guid = field(item, 'guid');
  const permalink = guid?.attributes.isPermaLink !== 'false' ? lineOf(guid) : null;
  return {
    title: fieldLine(item, 'title'),
    link: fieldLine(item, 'link') ?? permalink ?? item.attributes['rdf:about'] ?? null,
    date: isoDate(fieldLine(item, 'pubDate', 'date')),
    author: fieldLine(item, 'author', 'creator'),
    html: textOf(field(item, 'description') ?? field(item, 'encoded')),
  };
}

function itemMarkdown(item: Item, number: number): string {
  const title = escapeHtml(item.title ?? `Item ${number}`);
  const heading = item.link ? `<h2><a href="${escapeHtml(item.link)}">${title}</a></h2>` : `<h2>${title}</h2>`;
  const byline = [item.date, item.author && `by ${item.author}`].filter(Boolean).join(', ');
  return [convertToMarkdown(heading), byline && convertToMarkdown(`<p>${escapeHtml(byline)}</p>`)]
    .concat(convertToMarkdown(item.html))
    .filter(Boolean)
    .join('\n\n');
}

/** Any of the three by its root element; `type` is what the body was sniffed as, for the error if it is not XML. */
export function readFeed(text: string, type: DocumentType): DocumentText {
  const root = parseXml(text, type, 'the feed');
  const atom = root.local === 'feed';
  const channel = atom ? root : (firstElement(root, 'channel') ?? root);
  const title = fieldLine(channel, 'title');
  const description = atom ? atomHtml(field(root, 'subtitle')) : textOf(field(channel, 'description'));
  const items = atom
    ? elements(root, 'entry').map(atomItem)
    : // RSS 2.0 keeps its items in the channel, RSS 1.0 beside it.
      [...elements(channel, 'item'), ...(channel === root ? [] : elements(root, 'item'))].map(rssItem);
  const head = convertToMarkdown(`${title ? `<h1>${escapeHtml(title)}</h1>` : ''}${description}`);
  return {
    title,
    markdown: [head, ...items.map(itemMarkdown)].filter(Boolean).join('\n\n'),
  };
}

export const readRss = (text: string) => readFeed(text, 'rss');
export const readAtom = (text: string) => readFeed(text, 'atom');
