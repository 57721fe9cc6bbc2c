// Scans for bench:documents' OCR rows: a printed document rasterised at 150 dpi, as a scanner would give it: Chromium
// lays the HTML out at A4's width (794 CSS pixels) with 150/96 device pixels to each, and each A4-high slice is one
// page's PNG, the last one whole; the same pages as an image-only PDF (pdfkit), with no text layer.
import PDFDocument from 'pdfkit';
import type { Browser } from 'playwright-core';
import { createRetriedBrowser } from './retried-browser.js';

const A4 = { width: 794, height: 1123 };
const DPI_SCALE = 150 / 96;

export interface Scanner {
  /** The document's pages as PNGs at 150 dpi; null when it is longer than `maxPages`. */
  scan(html: string, maxPages: number): Promise<Buffer[] | null>;
  close(): Promise<void>;
}

async function scanOnce(browser: Browser, html: string, maxPages: number): Promise<Buffer[] | null> {
  const page = await browser.newPage({ viewport: A4, deviceScaleFactor: DPI_SCALE });
  try {
    await page.setContent(html, { waitUntil: 'load' });
    // A scanner gives whole pages, the last one too: the document is laid out to a whole number of A4 heights.
    const height = await page.evaluate((a4) => {
      const root = document.documentElement;
      root.style.minHeight = `${Math.ceil(root.scrollHeight / a4) * a4}px`;
      return root.scrollHeight;
    }, A4.height);
    if (height > maxPages * A4.height) return null;
    const pages: Buffer[] = [];
    for (let y = 0; y < height; y += A4.height)
      pages.push(await page.screenshot({ fullPage: true, clip: { x: 0, y, width: A4.width, height: A4.height } }));
    return pages;
  } finally {
    await page.close();
  }
}

export function createScanner(): Scanner {
  const browser = createRetriedBrowser();
  return {
    scan: (html, maxPages) => browser.run((chromium) => scanOnce(chromium, html, maxPages)),
    close: () => browser.close(),
  };
}

/** PNG pages → an image-only PDF, each page A4 in points with its picture filling it. */
export function imageOnlyPdf(pngs: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, compress: true });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const png of pngs) {
      doc.addPage({ size: 'A4', margin: 0 });
      doc.image(png, 0, 0, { fit: [doc.page.width, doc.page.height] });
    }
    doc.end();
  });
}
