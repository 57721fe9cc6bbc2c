// DOCX → Markdown: mammoth (BSD-2) maps Word's paragraph styles to HTML (Heading 1 → h1, lists, tables, links,
// footnotes), and the HTML extraction's converter writes the Markdown, footnotes as Markdown's own. Images are kept
// as their alt text only: mammoth would otherwise inline each one as a data: URL.
import mammoth from 'mammoth';
import { convertToMarkdown } from '../../extract/markdown/markdown.js';
import { readCoreProperties } from './office-properties.js';
import { entryText, openZip, repack } from './zip.js';
import type { DocumentLimits, DocumentText } from './types.js';

const altTextOnly = mammoth.images.imgElement(async () => ({ src: '' }));

/** mammoth's footnote links (a superscript [1] and a list with back links) → Markdown footnotes, [^1] and [^1]: …. */
function markdownFootnotes(markdown: string): string {
  return markdown
    .replace(/<sup>\[\\\[(\d+)\\\]\]\(#(?:foot|end)note-\d+\)<\/sup>/g, '[^$1]')
    .replace(/^\d+\. (.*?) ?\[↑\]\(#(?:foot|end)note-ref-(\d+)\)$/gm, '[^$2]: $1');
}

export async function readDocx(body: Buffer, limits: DocumentLimits): Promise<DocumentText> {
  const entries = openZip(body, 'docx', limits);
  const { value: html } = await mammoth.convertToHtml(
    { buffer: Buffer.from(repack(entries)) },
    { convertImage: altTextOnly, ignoreEmptyParagraphs: true },
  );
  const properties = readCoreProperties(entryText(entries, 'docProps/core.xml'));
  return { ...properties, markdown: markdownFootnotes(convertToMarkdown(html)) };
}
