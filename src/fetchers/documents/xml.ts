// The XML inside documents (PPTX parts, EPUB packages, feeds) as a small ordered element tree, parsed safely: the
// parser expands no entity at all (a DOCTYPE's own entities, billion laughs included, stay unexpanded text); text and
// attributes are decoded here from the standard and numeric references and the few HTML ones feeds use (&nbsp;,
// &mdash;…), never from a declaration. CDATA is kept as written.
import { XMLParser } from 'fast-xml-parser';
import { decodeEntities } from '../../extract/formats/inline.js';
import { UnreadableDocument, type DocumentType } from './types.js';

export interface XmlElement {
  /** The name as written, prefix included (`dc:title`). */
  name: string;
  /** Without its prefix (`title`): what the readers match on, whatever prefix a file binds. */
  local: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const CDATA = '#cdata';
/** fast-xml-parser's ordered tree with attributes by their names and every value as written. */
export const ORDERED_XML = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
} as const;
const parser = new XMLParser({ ...ORDERED_XML, cdataPropName: CDATA, processEntities: false });

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function toNodes(ordered: Ordered[]): XmlNode[] {
  const nodes: XmlNode[] = [];
  for (const item of ordered) {
    const name = Object.keys(item).find((key) => key !== ':@');
    if (!name || name.startsWith('?') || name.startsWith('!')) continue;
    const value = item[name];
    if (name === '#text') nodes.push(decodeEntities(String(value)));
    else if (name === CDATA) nodes.push((value as { '#text'?: string }[]).map((part) => part['#text'] ?? '').join(''));
    else {
      const attributes: Record<string, string> = {};
      for (const [key, raw] of Object.entries(item[':@'] ?? {})) attributes[key] = decodeEntities(String(raw));
      nodes.push({ name, local: localName(name), attributes, children: toNodes(value as Ordered[]) });
    }
  }
  return nodes;
}

/** The document's root element; XML the parser refuses, or none at all, is an unreadable `type` file. */
export function parseXml(xml: string, type: DocumentType, part: string): XmlElement {
  let nodes: XmlNode[];
  try {
    nodes = toNodes(parser.parse(xml) as Ordered[]);
  } catch {
    throw new UnreadableDocument(type, `holds XML that cannot be parsed (${part})`);
  }
  const root = nodes.find((node) => typeof node !== 'string');
  if (!root) throw new UnreadableDocument(type, `holds no XML element (${part})`);
  return root;
}

export function elements(parent: XmlElement, local?: string): XmlElement[] {
  return parent.children.filter(
    (node): node is XmlElement => typeof node !== 'string' && (local === undefined || node.local === local),
  );
}

export function firstElement(parent: XmlElement | undefined, local: string): XmlElement | undefined {
  return parent && elements(parent, local)[0];
}

/** Every element named `local` under `parent`, in document order. */
export function descendants(parent: XmlElement, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const child of elements(parent)) {
    if (child.local === local) found.push(child);
    found.push(...descendants(child, local));
  }
  return found;
}

/** All the text under an element, as written. */
export function textOf(element: XmlElement | undefined): string {
  if (!element) return '';
  return element.children.map((node) => (typeof node === 'string' ? node : textOf(node))).join('');
}

/** Text squeezed to one line, or null when there is none. */
export function lineOf(element: XmlElement | undefined): string | null {
  const text = textOf(element).replace(/\s+/g, ' ').trim();
  return text || null;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An element's children written back as HTML (Atom's xhtml content), prefixes dropped. */
export function innerHtml(element: XmlElement): string {
  return element.children
    .map((node) => {
      if (typeof node === 'string') return escapeHtml(node);
      const attributes = Object.entries(node.attributes)
        .filter(([key]) => !key.startsWith('xmlns'))
        .map(([key, value]) => ` ${localName(key)}="${escapeHtml(value)}"`)
        .join('');
      return `<${node.local}${attributes}>${innerHtml(node)}</${node.local}>`;
    })
    .join('');
}
