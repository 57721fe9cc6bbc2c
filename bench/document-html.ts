// The documents `npm run bench:documents` prints to PDF: a page's labelled text (the benchmark's truth) rendered as an
// HTML document, so the score measures reading the PDF, not removing boilerplate. Structure is kept where the label
// or the page shows it: a label line that is one of the page's own <h1>–<h6> becomes that heading, WCXB's Markdown
// headings and pipe tables become headings and tables, bullet lines a list; every other line is a paragraph.
import { DOMParser } from 'linkedom';

export type Layout = 'one-column' | 'two-column';

export interface PrintedDocument {
  html: string;
  /** The headings and tables printed, to compare with those the PDF's Markdown has. */
  headings: string[];
  tables: string[][][];
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text of each heading of the page as served, with its level. */
function pageHeadings(pageHtml: string): Map<string, number> {
  const doc = new DOMParser().parseFromString(pageHtml, 'text/html');
  const levels = new Map<string, number>();
  for (const el of doc.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const text = normalise(el.textContent ?? '');
    if (text && !levels.has(text)) levels.set(text, Number(el.tagName.slice(1)));
  }
  return levels;
}

const TABLE_ROW = /^\|.*\|$/;
const TABLE_RULE = /^\|[\s:|-]+\|$/;
const BULLET = /^[-*•]\s+/;
const MARKDOWN_HEADING = /^(#{1,6})\s+(.*)$/;
/** A heading is a short line: longer ones that match a page's heading are a teaser set in a heading tag. */
const HEADING_MAX_CHARS = 150;

const splitRow = (line: string) =>
  line
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());

/** Label text → the body of the printed document, and what structure it has. */
export function labelToDocument(label: string, pageHtml: string): Omit<PrintedDocument, 'html'> & { body: string } {
  const levels = pageHeadings(pageHtml);
  const lines = label.split('\n').map((line) => line.trim());
  const out: string[] = [];
  const headings: string[] = [];
  const tables: string[][][] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    if (TABLE_ROW.test(line)) {
      const rows: string[][] = [];
      for (; i < lines.length && TABLE_ROW.test(lines[i]!); i++)
        if (!TABLE_RULE.test(lines[i]!)) rows.push(splitRow(lines[i]!));
      i--;
      tables.push(rows);
      const [head, ...rest] = rows;
      const cells = (row: string[], tag: string) => row.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('');
      out.push(
        `<table><thead><tr>${cells(head ?? [], 'th')}</tr></thead><tbody>` +
          rest.map((row) => `<tr>${cells(row, 'td')}</tr>`).join('') +
          '</tbody></table>',
      );
      continue;
    }
    if (BULLET.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && BULLET.test(lines[i]!); i++) items.push(lines[i]!.replace(BULLET, ''));
      i--;
      out.push(`<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`);
      continue;
    }
    const marked = MARKDOWN_HEADING.exec(line);
    const level = marked
      ? marked[1]!.length
      : line.length <= HEADING_MAX_CHARS
        ? levels.get(normalise(line))
        : undefined;
    if (level !== undefined) {
      const text = marked ? marked[2]! : line;
      headings.push(text);
      // Levels 1–4 only: a document's title is h1 and its sections follow, whatever depth the site used.
      out.push(`<h${Math.min(level, 4)}>${escapeHtml(text)}</h${Math.min(level, 4)}>`);
      continue;
    }
    out.push(`<p>${escapeHtml(line)}</p>`);
  }
  return { body: out.join('\n'), headings, tables };
}

/** A plain document style: serif body, sans headings, ruled tables; two columns with CSS columns. */
function stylesheet(layout: Layout): string {
  const columns = layout === 'two-column' ? 'body { columns: 2; column-gap: 2em; }' : '';
  return `
    body { font: 11pt/1.45 "DejaVu Serif", serif; margin: 0; }
    h1, h2, h3, h4 { font-family: "DejaVu Sans", sans-serif; break-after: avoid; }
    h1 { font-size: 20pt; } h2 { font-size: 16pt; } h3 { font-size: 13.5pt; } h4 { font-size: 12pt; }
    p { margin: 0 0 0.6em; text-align: justify; hyphens: auto; }
    table { border-collapse: collapse; margin: 0.8em 0; font-size: 9.5pt; width: 100%; }
    th, td { border: 1px solid #888; padding: 2px 6px; text-align: left; vertical-align: top; }
    ${columns}`;
}

export function printedDocument(label: string, pageHtml: string, layout: Layout): PrintedDocument {
  const { body, headings, tables } = labelToDocument(label, pageHtml);
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>${stylesheet(layout)}</style></head>` +
    `<body>${body}</body></html>`;
  return { html, headings, tables };
}
