// The pages of a PDF that are pictures of text (a scan: one image covering most of the page, no text layer) read by
// OCR. A page with no text and no such image (a blank page, a small figure) is left as it is, and costs nothing.
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import { pixelsToPng, startOcr } from './ocr.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/** Share of the page an image must cover to be a scan of it, rather than a figure on it. */
const SCAN_COVERAGE = 0.5;

interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data?: Uint8Array;
}

type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

async function imageObject(page: PDFPageProxy, id: string): Promise<DecodedImage | null> {
  // Images shared by pages live in the document's common objects ("g_" ids), the others in the page's own.
  const objects = id.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    objects.get(id, (image: DecodedImage | null) => resolve(image));
  });
}

/** The largest image drawn on the page, when it covers at least SCAN_COVERAGE of it; null otherwise. */
async function scannedImage(pdfjs: PdfJs, page: PDFPageProxy): Promise<DecodedImage | null> {
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const pageArea = Math.abs((x1 - x0) * (y1 - y0));
  const { fnArray, argsArray } = await page.getOperatorList();
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let best: { area: number; id?: string; inline?: DecodedImage } | null = null;
  for (let i = 0; i < fnArray.length; i++) {
    const op = fnArray[i];
    const args = argsArray[i] as unknown[];
    if (op === pdfjs.OPS.save) stack.push(ctm);
    else if (op === pdfjs.OPS.restore) ctm = stack.pop() ?? ctm;
    else if (op === pdfjs.OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (op === pdfjs.OPS.paintImageXObject || op === pdfjs.OPS.paintInlineImageXObject) {
      // An image fills the unit square of the current matrix: its area on the page is the matrix's determinant.
      const area = Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
      if (area >= SCAN_COVERAGE * pageArea && (!best || area > best.area))
        best =
          op === pdfjs.OPS.paintImageXObject
            ? { area, id: args[0] as string }
            : { area, inline: args[0] as DecodedImage };
    }
  }
  if (!best) return null;
  return best.inline ?? imageObject(page, best.id!);
}

/**
 * OCR of the listed pages (1-based) that are scans, at most `cap` of them, in order: their text by page number.
 * `skipped`: pages without a text layer past the cap.
 */
export async function ocrScannedPages(
  pdfjs: PdfJs,
  doc: PDFDocumentProxy,
  pages: readonly number[],
  cap: number,
): Promise<{ texts: Map<number, string>; skipped: number }> {
  const texts = new Map<number, string>();
  let skipped = 0;
  const ocr = pages.length > 0 && cap > 0 ? await startOcr() : null;
  try {
    for (const number of pages) {
      const page = await doc.getPage(number);
      const image = texts.size < cap && ocr ? await scannedImage(pdfjs, page) : null;
      if (image?.data && ocr) texts.set(number, await ocr.read(pixelsToPng({ ...image, data: image.data })));
      else if (texts.size >= cap) skipped++;
      page.cleanup();
    }
  } finally {
    await ocr?.close();
  }
  return { texts, skipped };
}
