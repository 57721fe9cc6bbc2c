// Pictures of known text, as a scanner or a phone would give them: lines rendered by Chromium and captured as PNG or
// JPEG, and PDFs that are such pictures one per page with no text layer (pdfkit). Made at test time: no binary
// fixture is committed.
import PDFDocument from 'pdfkit';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../../fetchers/chromium.js';

export interface TextImage {
  png: Buffer;
  jpeg: Buffer;
  width: number;
  height: number;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Each entry of `pages` (lines of text) as a picture, black on white in a 26 px serif. */
export async function renderTextImages(pages: string[][], width = 900): Promise<TextImage[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  try {
    const page = await browser.newPage({ viewport: { width, height: 100 } });
    const images: TextImage[] = [];
    for (const lines of pages) {
      const height = 40 + lines.length * 36;
      await page.setViewportSize({ width, height });
      const body = lines.map((line) => `<p style="margin:0 0 6px">${escape(line)}</p>`).join('');
      await page.setContent(`<body style="margin:20px;font:26px/30px serif;color:#000;background:#fff">${body}</body>`);
      images.push({
        png: await page.screenshot(),
        jpeg: await page.screenshot({ type: 'jpeg', quality: 90 }),
        width,
        height,
      });
    }
    return images;
  } finally {
    await browser.close();
  }
}

/** A PDF of `pages`, one a page: an image fills its page (a scan, no text layer); a string is a page of real text. */
export function imagePdf(pages: readonly (TextImage | string)[], format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, compress: true });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const page of pages) {
      if (typeof page === 'string') {
        doc.addPage({ size: 'A4', margin: 56 });
        doc.fontSize(12).text(page);
        continue;
      }
      doc.addPage({ size: [page.width, page.height], margin: 0 });
      doc.image(page[format], 0, 0, { width: page.width, height: page.height });
    }
    doc.end();
  });
}
