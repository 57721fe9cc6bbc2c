// DOCX files made at test time with the `docx` writer (MIT), so the reader is checked against content known in advance:
// a report with headings, a list, a table, a link and a footnote.
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

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

export const REPORT_SENTENCE =
  'Tomatoes need at least six hours of direct sun every day, which makes a south-facing balcony the best place.';

export async function makeDocx(): Promise<Buffer> {
  const doc = new Document({
    title: 'Balcony Tomato Report',
    creator: 'Ada Gardener',
    footnotes: { 1: { children: [new Paragraph('Measured on a balcony in Lyon, 2024.')] } },
    sections: [
      {
        children: [
          new Paragraph({ text: 'Sun and soil', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun(REPORT_SENTENCE), new FootnoteReferenceRun(1)] }),
          new Paragraph({ text: 'Deep pots with drainage holes', bullet: { level: 0 } }),
          new Paragraph({ text: 'A good potting mix', bullet: { level: 0 } }),
          new Paragraph({ text: 'Watering', heading: HeadingLevel.HEADING_2 }),
          new Table({
            rows: [
              new TableRow({ children: [cell('Month'), cell('Litres per week')] }),
              new TableRow({ children: [cell('June'), cell('12')] }),
              new TableRow({ children: [cell('July'), cell('18')] }),
            ],
          }),
          new Paragraph({
            children: [
              new TextRun('More in the '),
              new ExternalHyperlink({ link: 'https://example.org/guide', children: [new TextRun('growing guide')] }),
              new TextRun('.'),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}
