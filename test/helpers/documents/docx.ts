// DOCX files made at test time with the `docx` writer (MIT) from content given as data, so a test or a benchmark knows
// every heading, list item, table cell, link and footnote that must come back, and in which order.
import {
  Document,
  ExternalHyperlink,
  FootnoteReferenceRun,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from 'docx';

export type DocBlock =
  | { heading: string; level: 1 | 2 | 3 }
  /** `footnote`: a note on the paragraph, numbered in order. */
  | { paragraph: string; footnote?: string }
  | { bullets: string[] }
  /** The first row is the header. */
  | { table: string[][] }
  | { link: { before: string; text: string; url: string } };

export interface DocContent {
  title: string;
  author: string;
  blocks: DocBlock[];
}

export const REPORT_SENTENCE =
  'Tomatoes need at least six hours of direct sun every day, which makes a south-facing balcony the best place.';

export const TOMATO_REPORT: DocContent = {
  title: 'Balcony Tomato Report',
  author: 'Ada Gardener',
  blocks: [
    { heading: 'Sun and soil', level: 1 },
    { paragraph: REPORT_SENTENCE, footnote: 'Measured on a balcony in Lyon, 2024.' },
    { bullets: ['Deep pots with drainage holes', 'A good potting mix'] },
    { heading: 'Watering', level: 2 },
    {
      table: [
        ['Month', 'Litres per week'],
        ['June', '12'],
        ['July', '18'],
      ],
    },
    { link: { before: 'More in the ', text: 'growing guide', url: 'https://example.org/guide' } },
  ],
};

const HEADINGS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;
const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

export async function makeDocx(content: DocContent = TOMATO_REPORT): Promise<Buffer> {
  const footnotes: Record<number, { children: Paragraph[] }> = {};
  const children = content.blocks.flatMap((block): (Paragraph | Table)[] => {
    if ('heading' in block) return [new Paragraph({ text: block.heading, heading: HEADINGS[block.level] })];
    if ('paragraph' in block) {
      if (!block.footnote) return [new Paragraph(block.paragraph)];
      const id = Object.keys(footnotes).length + 1;
      footnotes[id] = { children: [new Paragraph(block.footnote)] };
      return [new Paragraph({ children: [new TextRun(block.paragraph), new FootnoteReferenceRun(id)] })];
    }
    if ('bullets' in block) return block.bullets.map((text) => new Paragraph({ text, bullet: { level: 0 } }));
    if ('table' in block)
      return [new Table({ rows: block.table.map((row) => new TableRow({ children: row.map(cell) })) })];
    const { before, text, url } = block.link;
    return [
      new Paragraph({
        children: [
          new TextRun(before),
          new ExternalHyperlink({ link: url, children: [new TextRun(text)] }),
          new TextRun('.'),
        ],
      }),
    ];
  });
  const doc = new Document({
    title: content.title,
    creator: content.author,
    footnotes,
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}
