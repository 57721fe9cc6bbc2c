// PPTX → Markdown: the slides in presentation order (ppt/presentation.xml's slide list through its relationships, not
// the file names), one `## Slide N: <title>` section each with its text in reading order and its speaker notes in a
// quote under "Notes:". Only the parts read are inflated (pictures and media never are), within DocumentLimits.
import { posix } from 'node:path';
import type { Unzipped } from 'fflate';
import { convertToMarkdown } from '../../extract/markdown/markdown.js';
import { placeholderType, shapesHtml, slideTitle, textBodyHtml, type Links } from './drawingml.js';
import { readCoreProperties } from './office-properties.js';
import { UnreadableDocument, type DocumentLimits, type DocumentText } from './types.js';
import { descendants, elements, escapeHtml, firstElement, parseXml, type XmlElement } from './xml.js';
import { entryText, openZip } from './zip.js';

const PARTS_READ = /^(ppt\/(presentation\.xml|_rels\/|slides\/|notesSlides\/)|docProps\/core\.xml$)/;
const RELATIONSHIP_TYPES = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';

function part(entries: Unzipped, name: string): XmlElement | undefined {
  const xml = entryText(entries, name);
  return xml === undefined ? undefined : parseXml(xml, 'pptx', name);
}

interface Relationship {
  /** A part's name inside the file, or an external relationship's URL as written. */
  target: string;
  type: string;
  external: boolean;
}

/** A part's relationships (its `_rels/<name>.rels`) by id. */
function relationships(entries: Unzipped, name: string): Map<string, Relationship> {
  const rels = part(entries, posix.join(posix.dirname(name), '_rels', `${posix.basename(name)}.rels`));
  const byId = new Map<string, Relationship>();
  for (const rel of rels ? elements(rels, 'Relationship') : []) {
    const { Id, Target, Type } = rel.attributes;
    if (!Id || !Target) continue;
    const external = rel.attributes.TargetMode === 'External';
    const inside = Target.startsWith('/') ? Target.slice(1) : posix.join(posix.dirname(name), Target);
    const type = Type?.replace(RELATIONSHIP_TYPES, '') ?? '';
    byId.set(Id, { target: external ? Target : posix.normalize(inside), type, external });
  }
  return byId;
}

/** The web and mail links of a part's relationships; links to other slides or files lead nowhere outside. */
function hyperlinks(rels: Map<string, Relationship>): Links {
  const links = new Map<string, string>();
  for (const [id, rel] of rels)
    if (rel.type === 'hyperlink' && rel.external && /^(https?|mailto):/i.test(rel.target)) links.set(id, rel.target);
  return links;
}

/** The slides' part names in the order the presentation shows them. */
function slideParts(entries: Unzipped): string[] {
  const presentation = part(entries, 'ppt/presentation.xml');
  if (!presentation) throw new UnreadableDocument('pptx', 'has no ppt/presentation.xml');
  const rels = relationships(entries, 'ppt/presentation.xml');
  return descendants(presentation, 'sldId').flatMap((slide) => {
    const rel = rels.get(slide.attributes['r:id'] ?? '');
    return rel?.type === 'slide' && !rel.external ? [rel.target] : [];
  });
}

/** The speaker notes' text: the notes page's body placeholder, not its slide picture or page number. */
function notesHtml(entries: Unzipped, slideRels: Map<string, Relationship>): string {
  const notesRel = [...slideRels.values()].find((rel) => rel.type === 'notesSlide' && !rel.external);
  const tree = notesRel && firstElement(firstElement(part(entries, notesRel.target), 'cSld'), 'spTree');
  if (!tree) return '';
  const links = hyperlinks(relationships(entries, notesRel.target));
  return elements(tree, 'sp')
    .filter((shape) => placeholderType(shape) === 'body')
    .map((shape) => textBodyHtml(firstElement(shape, 'txBody'), false, links))
    .join('');
}

interface Slide {
  title: string | null;
  html: string;
}

function readSlide(entries: Unzipped, name: string, number: number): Slide {
  const tree = firstElement(firstElement(part(entries, name), 'cSld'), 'spTree');
  const title = tree ? slideTitle(tree) : null;
  const heading = `<h2>Slide ${number}${title ? `: ${escapeHtml(title)}` : ''}</h2>`;
  const rels = relationships(entries, name);
  const notes = notesHtml(entries, rels);
  const quoted = notes && `<blockquote><p><strong>Notes:</strong></p>${notes}</blockquote>`;
  return { title, html: heading + (tree ? shapesHtml(tree, hyperlinks(rels)) : '') + quoted };
}

export async function readPptx(body: Buffer, limits: DocumentLimits): Promise<DocumentText> {
  const entries = openZip(body, 'pptx', limits, (name) => PARTS_READ.test(name));
  const slides = slideParts(entries).map((name, i) => readSlide(entries, name, i + 1));
  const properties = readCoreProperties(entryText(entries, 'docProps/core.xml'));
  return {
    ...properties,
    title: properties.title ?? slides[0]?.title ?? null,
    markdown: convertToMarkdown(slides.map((slide) => slide.html).join('')),
    pageCount: slides.length,
  };
}
