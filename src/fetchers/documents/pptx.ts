// PPTX → Markdown: the slides in presentation order (ppt/presentation.xml's slide list through its relationships, not
// the file names), one `## Slide N: <title>` section each with its text in reading order and its speaker notes in a
// quote under "Notes:". Only the parts read are inflated (pictures and media never are), within DocumentLimits.
import { posix } from 'node:path';
import type { Unzipped } from 'fflate';
import { convertToMarkdown } from '../../extract/markdown/markdown.js';
import { placeholderType, shapesHtml, slideTitle, textBodyHtml } from './drawingml.js';
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

/** A part's relationships (its `_rels/<name>.rels`): id → the target part's name and the relationship's type. */
function relationships(entries: Unzipped, name: string): Map<string, { target: string; type: string }> {
  const rels = part(entries, posix.join(posix.dirname(name), '_rels', `${posix.basename(name)}.rels`));
  const byId = new Map<string, { target: string; type: string }>();
  for (const rel of rels ? elements(rels, 'Relationship') : []) {
    const { Id, Target, Type, TargetMode } = rel.attributes;
    if (!Id || !Target || TargetMode === 'External') continue;
    const target = Target.startsWith('/') ? Target.slice(1) : posix.join(posix.dirname(name), Target);
    byId.set(Id, { target: posix.normalize(target), type: Type?.replace(RELATIONSHIP_TYPES, '') ?? '' });
  }
  return byId;
}

/** The slides' part names in the order the presentation shows them. */
function slideParts(entries: Unzipped): string[] {
  const presentation = part(entries, 'ppt/presentation.xml');
  if (!presentation) throw new UnreadableDocument('pptx', 'has no ppt/presentation.xml');
  const rels = relationships(entries, 'ppt/presentation.xml');
  return descendants(presentation, 'sldId').flatMap((slide) => {
    const rel = rels.get(slide.attributes['r:id'] ?? '');
    return rel?.type === 'slide' ? [rel.target] : [];
  });
}

/** The speaker notes' text: the notes page's body placeholder, not its slide picture or page number. */
function notesHtml(entries: Unzipped, slidePart: string): string {
  const notesRel = [...relationships(entries, slidePart).values()].find((rel) => rel.type === 'notesSlide');
  const tree = notesRel && firstElement(firstElement(part(entries, notesRel.target), 'cSld'), 'spTree');
  if (!tree) return '';
  return elements(tree, 'sp')
    .filter((shape) => placeholderType(shape) === 'body')
    .map((shape) => textBodyHtml(firstElement(shape, 'txBody'), false))
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
  const notes = notesHtml(entries, name);
  const quoted = notes && `<blockquote><p><strong>Notes:</strong></p>${notes}</blockquote>`;
  return { title, html: heading + (tree ? shapesHtml(tree) : '') + quoted };
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
