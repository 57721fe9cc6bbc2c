// PDFs made at test time with pdfkit (MIT), so no binary fixture is committed: a report with the layouts the PDF
// fetcher must get right, a long book for the benchmark, and a "scanned" PDF that is one image per page, no text.
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';

function render(
  build: (doc: PDFKit.PDFDocument) => void,
  info: { Title?: string; Author?: string } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info, bufferPages: true, compress: true });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    build(doc);
    doc.end();
  });
}

const PROSE =
  'Tomatoes need at least six hours of direct sun every day, which makes a south-facing ' +
  'balcony the best place for them. ' +
  ('Choose a deep pot with drainage holes and a good potting mix, and water deeply but not ' +
    'too often so that the roots grow down.');

/** Running head and page number on every page, as word processors print them. */
function stampPages(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc.page.margins.bottom = 0; // else text below the margin starts a new page
    doc.font('Helvetica').fontSize(8).text('Balcony Gardening Quarterly', 56, 24, { lineBreak: false });
    doc
      .font('Helvetica')
      .fontSize(8)
      .text(String(i + 1), 0, doc.page.height - 40, { align: 'center', width: doc.page.width, lineBreak: false });
  }
}

/** Three pages: title, headings at two sizes, a hyphenated paragraph, a list, a table, two columns. */
export function makeReportPdf(): Promise<Buffer> {
  return render(
    (doc) => {
      doc.font('Helvetica-Bold').fontSize(24).text('Field Guide to Balcony Tomatoes');
      doc.moveDown(0.5);
      doc.font('Helvetica-Bold').fontSize(16).text('Sun and soil');
      doc.moveDown(0.3);
      // A word broken at a line end, as a typesetter hyphenates it.
      doc
        .font('Helvetica')
        .fontSize(11)
        .text(
          'The first rule of balcony growing is light: a plant in shade grows tall and weak, and its ' +
            'fruit never sweet-',
          { width: 483 },
        );
      doc.text('ens properly before the first cold night arrives in autumn.', { width: 483 });
      doc.moveDown(0.8);
      doc.text(PROSE, { align: 'justify' });
      doc.moveDown(0.8);
      doc.font('Helvetica-Bold').fontSize(13).text('What you need');
      doc.moveDown(0.3);
      doc.font('Helvetica').fontSize(11);
      for (const item of ['A pot of at least 20 litres', 'Potting mix with compost', 'A sturdy stake'])
        doc.text(`•  ${item}`);
      doc.moveDown(0.8);
      doc.font('Helvetica-Bold').fontSize(13).text('Varieties compared');
      doc.moveDown(0.3);
      doc.font('Helvetica').fontSize(11);
      const top = doc.y;
      const rows = [
        ['Variety', 'Days to harvest', 'Yield (kg)'],
        ['Cherry', '60', '4.5'],
        ['Roma', '75', '3.2'],
        ['Beefsteak', '85', '5.1'],
      ];
      rows.forEach((row, r) =>
        row.forEach((cell, c) => doc.text(cell, 56 + c * 160, top + r * 16, { lineBreak: false })),
      );
      doc.text('', 56, top + rows.length * 16 + 12);
      doc.text('Harvest when the fruit is fully coloured and slightly soft to the touch.');

      doc.addPage();
      doc.font('Helvetica-Bold').fontSize(16).text('Two columns of notes');
      doc.moveDown(0.5);
      doc
        .font('Helvetica')
        .fontSize(11)
        .text(
          `LEFT-COLUMN-START ${PROSE} ${PROSE} LEFT-COLUMN-END RIGHT-COLUMN-START ${PROSE} ${PROSE} RIGHT-COLUMN-END`,
          {
            columns: 2,
            columnGap: 24,
            height: 260,
            align: 'left',
          },
        );

      doc.addPage();
      doc.font('Helvetica-Bold').fontSize(16).text('Pests');
      doc.moveDown(0.5);
      doc
        .font('Helvetica')
        .fontSize(11)
        .text('Aphids gather under the leaves; a jet of water moves them on. Whitefly prefers warm, still air.');
      stampPages(doc);
    },
    { Title: 'Field Guide to Balcony Tomatoes', Author: 'Ada Gardener' },
  );
}

/** `pages` pages of chapters with headings and paragraphs, and a table every fifth page: the benchmark's document. */
export function makeBookPdf(pages: number): Promise<Buffer> {
  return render(
    (doc) => {
      for (let p = 1; p <= pages; p++) {
        if (p > 1) doc.addPage();
        if (p === 1) doc.font('Helvetica-Bold').fontSize(24).text('A Long Guide');
        doc.font('Helvetica-Bold').fontSize(16).text(`Chapter ${p}`);
        doc.moveDown(0.5);
        doc.font('Helvetica').fontSize(11);
        for (let i = 0; i < 4; i++)
          doc.text(`Paragraph ${i + 1} of chapter ${p}. ${PROSE}`, { align: 'justify' }).moveDown(0.5);
        if (p % 5 === 0) {
          const top = doc.y;
          [
            ['Variety', 'Days', 'Yield'],
            ['Cherry', '60', '4.5'],
            ['Roma', '75', '3.2'],
          ].forEach((row, r) =>
            row.forEach((cell, c) => doc.text(cell, 56 + c * 150, top + r * 16, { lineBreak: false })),
          );
          doc.text('', 56, top + 60);
        }
      }
      stampPages(doc);
    },
    { Title: 'A Long Guide', Author: 'Fetchdown bench' },
  );
}

/** A grey PNG of noise-like stripes, as a page scan looks to a PDF library: pixels, no text. */
function scanPng(width: number, height: number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0; // filter: none
    for (let x = 0; x < width; x++)
      raw[y * (width + 1) + 1 + x] = y % 12 < 2 && x > 20 && x < width - 20 ? 40 : 235 - ((x * 7 + y * 13) % 9);
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Two pages that are each one image, like a scanner's output: no text layer at all. */
export function makeScannedPdf(): Promise<Buffer> {
  const png = scanPng(200, 280);
  return render((doc) => {
    doc.image(png, 0, 0, { width: doc.page.width, height: doc.page.height });
    doc.addPage();
    doc.image(png, 0, 0, { width: doc.page.width, height: doc.page.height });
  });
}
