// docProps/core.xml, the Dublin Core block every OOXML file (DOCX, XLSX, PPTX) carries: title, author, subject, date.
import { XMLParser } from 'fast-xml-parser';
import type { DocumentText } from './types.js';

const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false });

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() ? value.replace(/\s+/g, ' ').trim() : null;

export function readCoreProperties(
  xml: string | undefined,
): Pick<DocumentText, 'title' | 'author' | 'description' | 'publishedAt'> {
  const core = xml ? ((parser.parse(xml) as { coreProperties?: Record<string, unknown> }).coreProperties ?? {}) : {};
  const created = text(core.created);
  return {
    title: text(core.title),
    author: text(core.creator),
    description: text(core.description) ?? text(core.subject),
    publishedAt: created && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : null,
  };
}
