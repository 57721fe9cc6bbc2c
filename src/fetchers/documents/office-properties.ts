// docProps/core.xml, the Dublin Core block every OOXML file (DOCX, XLSX, PPTX) carries: title, author, subject, date.
// Parsed like every other part (xml.ts: no entity expanded); a broken block is no properties, not a broken file.
import { UnreadableDocument, type DocumentText } from './types.js';
import { firstElement, lineOf, parseXml, type XmlElement } from './xml.js';

type CoreProperties = Pick<DocumentText, 'title' | 'author' | 'description' | 'publishedAt'>;

export function readCoreProperties(xml: string | undefined): CoreProperties {
  let core: XmlElement | undefined;
  try {
    core = xml === undefined ? undefined : parseXml(xml, 'docx', 'docProps/core.xml');
  } catch (error) {
    if (!(error instanceof UnreadableDocument)) throw error;
  }
  const created = lineOf(firstElement(core, 'created'));
  return {
    title: lineOf(firstElement(core, 'title')),
    author: lineOf(firstElement(core, 'creator')),
    description: lineOf(firstElement(core, 'description')) ?? lineOf(firstElement(core, 'subject')),
    publishedAt: created && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : null,
  };
}
