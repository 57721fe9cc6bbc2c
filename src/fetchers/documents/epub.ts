// EPUB → Markdown: META-INF/container.xml names the package (OPF), whose metadata gives the title, authors, language,
// date and description, and whose spine gives the chapters in reading order (the zip's order means nothing). Each
// chapter's body goes through the web pages' converter; links inside the book would resolve against the book's URL
// into addresses that do not exist, so they become their text, and pictures become their alt text.
import { posix } from 'node:path';
import type { Unzipped } from 'fflate';
import { DOMParser } from 'linkedom';
import { unwrap } from '../../extract/dom.js';
import { convertToMarkdown } from '../../extract/markdown/markdown.js';
import { stripInertMarkup } from '../../extract/parse/parse.js';
import { UnreadableDocument, type DocumentLimits, type DocumentText } from './types.js';
import { descendants, elements, firstElement, lineOf, parseXml, type XmlElement } from './xml.js';
import { entryText, openZip } from './zip.js';

/** Pictures, fonts, sound and styles: never read, so never inflated. */
const NOT_TEXT = /\.(png|jpe?g|gif|webp|svg|bmp|tiff?|ttf|otf|woff2?|eot|mp3|mp4|m4a|ogg|webm|css)$/i;
/** Links that lead out of the book keep their target. */
const OUTSIDE_LINK = /^(https?|mailto):/i;

function packagePart(entries: Unzipped, name: string): XmlElement {
  const xml = entryText(entries, name);
  if (xml === undefined) throw new UnreadableDocument('epub', `has no ${name}`);
  return parseXml(xml, 'epub', name);
}

/** A chapter's body as HTML an agent can use: book-internal links as text, pictures as their alt text. */
function chapterHtml(xhtml: string): string {
  const doc = new DOMParser().parseFromString(stripInertMarkup(xhtml), 'text/html') as unknown as Document;
  const body = doc.body ?? doc.documentElement;
  for (const link of Array.from(body.querySelectorAll('a'))) {
    if (!OUTSIDE_LINK.test(link.getAttribute('href') ?? '')) unwrap(link);
  }
  for (const image of Array.from(body.querySelectorAll('img'))) {
    const alt = image.getAttribute('alt')?.trim();
    image.replaceWith(...(alt ? [doc.createTextNode(alt)] : []));
  }
  return body.innerHTML;
}

/** Manifest hrefs are URLs: percent-encoded, as the zip's names are not. */
function entryName(opfPath: string, href: string): string {
  let path = href;
  try {
    path = decodeURIComponent(href);
  } catch {
    // A stray % is a file name's own character.
  }
  return posix.join(posix.dirname(opfPath), path);
}

function isoDate(text: string | null): string | null {
  return text && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : null;
}

export async function readEpub(body: Buffer, limits: DocumentLimits): Promise<DocumentText> {
  const entries = openZip(body, 'epub', limits, (name) => !NOT_TEXT.test(name));
  const opfPath = descendants(packagePart(entries, 'META-INF/container.xml'), 'rootfile')[0]?.attributes['full-path'];
  if (!opfPath) throw new UnreadableDocument('epub', 'names no package document in META-INF/container.xml');
  const opf = packagePart(entries, opfPath);
  const metadata = firstElement(opf, 'metadata');
  const dc = (local: string) =>
    metadata
      ? elements(metadata, local)
          .map(lineOf)
          .filter((v) => v !== null)
      : [];
  const manifest = new Map(
    elements(firstElement(opf, 'manifest') ?? opf, 'item').map((item) => [item.attributes.id, item]),
  );
  // The navigation document is the table of contents: links to chapters that follow anyway.
  const chapters = elements(firstElement(opf, 'spine') ?? opf, 'itemref')
    .map((ref) => manifest.get(ref.attributes.idref ?? '')?.attributes)
    .filter((item) => item?.href && !/\bnav\b/.test(item.properties ?? ''))
    .map((item) => entryText(entries, entryName(opfPath, item!.href!)))
    .filter((xhtml) => xhtml !== undefined);
  return {
    title: dc('title')[0] ?? null,
    author: dc('creator').join(', ') || null,
    language: dc('language')[0] ?? null,
    publishedAt: isoDate(dc('date')[0] ?? null),
    description: dc('description')[0] ?? null,
    markdown: convertToMarkdown(chapters.map(chapterHtml).join('')),
  };
}
