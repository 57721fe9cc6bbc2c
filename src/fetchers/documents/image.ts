// An image (PNG, JPEG, WebP, GIF) → its text by OCR: one page. An image without text is empty content, not billed.
import { startOcr } from './ocr.js';
import type { DocumentText } from './types.js';

export async function readImage(body: Buffer): Promise<DocumentText> {
  const ocr = await startOcr();
  try {
    return { title: null, markdown: await ocr.read(body), ocrPages: 1 };
  } finally {
    await ocr.close();
  }
}
