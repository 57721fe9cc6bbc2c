// A slide's shape tree (DrawingML inside PresentationML) → HTML in reading order, which is the tree's order: text
// boxes as paragraphs, bulleted and numbered paragraphs as nested lists by their level, tables as tables, groups
// opened in place, links kept where they lead out of the deck. The HTML goes through the same converter as web pages.
import { elements, escapeHtml, firstElement, textOf, type XmlElement } from './xml.js';

/** Placeholders that repeat on every slide and say nothing about it. */
const FURNITURE = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);
const TITLES = new Set(['title', 'ctrTitle']);

/** A shape's placeholder type: `body` for a placeholder without one, as PresentationML defaults it; null if none. */
export function placeholderType(shape: XmlElement): string | null {
  const properties = elements(shape).find((child) => child.local.startsWith('nv'));
  const placeholder = firstElement(firstElement(properties, 'nvPr'), 'ph');
  return placeholder ? (placeholder.attributes.type ?? 'body') : null;
}

export const isTitle = (shape: XmlElement) => TITLES.has(placeholderType(shape) ?? '');

/** A part's hyperlinks: relationship id → the http(s) or mailto URL it leads to. */
export type Links = ReadonlyMap<string, string>;

interface Paragraph {
  html: string;
  level: number;
  /** How the paragraph is marked, when it is a list item. */
  list: 'ul' | 'ol' | null;
}

/** A paragraph's runs and fields as text, `lineBreak` where a line break is. */
function paragraphText(paragraph: XmlElement, lineBreak: string): string {
  return elements(paragraph)
    .map((run) => {
      if (run.local === 'br') return lineBreak;
      return run.local === 'r' || run.local === 'fld' ? textOf(firstElement(run, 't')) : '';
    })
    .join('');
}

function runsHtml(paragraph: XmlElement, links: Links): string {
  return elements(paragraph)
    .map((run) => {
      if (run.local === 'br') return '<br>';
      if (run.local !== 'r' && run.local !== 'fld') return '';
      const text = escapeHtml(textOf(firstElement(run, 't')));
      const link = links.get(firstElement(firstElement(run, 'rPr'), 'hlinkClick')?.attributes['r:id'] ?? '');
      return link && text.trim() ? `<a href="${escapeHtml(link)}">${text}</a>` : text;
    })
    .join('');
}

/**
 * A paragraph is a list item when its properties say so (a bullet character or automatic numbering) or, with no
 * word either way, when it sits in a body placeholder, whose bullets the slide master gives.
 */
function readParagraph(paragraph: XmlElement, inBody: boolean, links: Links): Paragraph {
  const properties = firstElement(paragraph, 'pPr');
  const marks = properties ? elements(properties).map((child) => child.local) : [];
  const level = Number(properties?.attributes.lvl ?? 0) || 0;
  let list: Paragraph['list'] = null;
  if (marks.includes('buAutoNum')) list = 'ol';
  else if (marks.includes('buChar') || marks.includes('buBlip')) list = 'ul';
  else if (!marks.includes('buNone') && (inBody || level > 0)) list = 'ul';
  return { html: runsHtml(paragraph, links).trim(), level, list };
}

/** List items by level → nested lists; a jump of several levels nests once. */
function listHtml(items: Paragraph[]): string {
  let html = '';
  const open: { tag: 'ul' | 'ol'; level: number }[] = [];
  for (const item of items) {
    while (open.length > 0 && open.at(-1)!.level > item.level) html += `</li></${open.pop()!.tag}>`;
    if (open.at(-1)?.level === item.level) html += '</li>';
    else {
      const tag = item.list ?? 'ul';
      open.push({ tag, level: item.level });
      html += `<${tag}>`;
    }
    html += `<li>${item.html}`;
  }
  while (open.length > 0) html += `</li></${open.pop()!.tag}>`;
  return html;
}

/** A text body's paragraphs: runs of list items as one list, the others as paragraphs; empty ones dropped. */
export function textBodyHtml(body: XmlElement | undefined, inBody: boolean, links: Links): string {
  if (!body) return '';
  const paragraphs = elements(body, 'p')
    .map((paragraph) => readParagraph(paragraph, inBody, links))
    .filter((paragraph) => paragraph.html.replace(/<br>/g, '').trim());
  let html = '';
  for (let i = 0; i < paragraphs.length;) {
    if (!paragraphs[i]!.list) {
      html += `<p>${paragraphs[i++]!.html}</p>`;
      continue;
    }
    const start = i;
    while (i < paragraphs.length && paragraphs[i]!.list) i++;
    html += listHtml(paragraphs.slice(start, i));
  }
  return html;
}

function tableHtml(table: XmlElement, links: Links): string {
  const rows = elements(table, 'tr').map((row) => {
    const cells = elements(row, 'tc').map((cell) => {
      const lines = elements(firstElement(cell, 'txBody') ?? cell, 'p').map((p) => runsHtml(p, links).trim());
      return `<td>${lines.filter(Boolean).join('<br>')}</td>`;
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  return rows.length > 0 ? `<table>${rows.join('')}</table>` : '';
}

/** The shapes of a tree (a slide's spTree, a group) → HTML; the title and the furniture are left out. */
export function shapesHtml(tree: XmlElement, links: Links): string {
  return elements(tree)
    .map((shape) => {
      switch (shape.local) {
        case 'sp': {
          const type = placeholderType(shape);
          if (type && (TITLES.has(type) || FURNITURE.has(type))) return '';
          return textBodyHtml(firstElement(shape, 'txBody'), type === 'body' || type === 'obj', links);
        }
        case 'graphicFrame': {
          const table = firstElement(firstElement(firstElement(shape, 'graphic'), 'graphicData'), 'tbl');
          return table ? tableHtml(table, links) : '';
        }
        case 'grpSp':
          return shapesHtml(shape, links);
        default:
          return '';
      }
    })
    .join('');
}

/** The text of the slide's title placeholder, on one line; null when it has none. */
export function slideTitle(tree: XmlElement): string | null {
  const title = elements(tree, 'sp').find(isTitle);
  if (!title) return null;
  const paragraphs = elements(firstElement(title, 'txBody') ?? title, 'p');
  const text = paragraphs.map((paragraph) => paragraphText(paragraph, ' ')).join(' ');
  return text.replace(/\s+/g, ' ').trim() || null;
}
