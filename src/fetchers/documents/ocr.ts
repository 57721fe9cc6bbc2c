// OCR with tesseract.js (Apache-2.0, WebAssembly: no native code) and its English LSTM model from the npm registry
// (@tesseract.js-data/eng): nothing is fetched or written at run time. One engine per document, closed after it:
// OCR is rare and dear, and an idle engine holds ~100 MB. It runs on a thread of its own beside the extraction
// thread, which waits for it; stopping the extraction thread (its deadline) stops it too.
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import { createWorker, OEM } from 'tesseract.js';
import { UnreadableDocument } from './types.js';

const english = createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };

export interface OcrEngine {
  /** An encoded image's text (PNG, JPEG, WebP, GIF), in paragraphs; UnreadableDocument when it cannot be decoded. */
  read(image: Buffer): Promise<string>;
  close(): Promise<void>;
}

export async function startOcr(): Promise<OcrEngine> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: english.langPath,
    gzip: english.gzip,
    cacheMethod: 'none',
    // Without a handler tesseract.js throws a failed job's error from an event, which no caller can catch (it took the
    // thread down); with one, the job's promise rejects and read() says why.
    errorHandler: () => {},
  });
  return {
    read: async (image) => {
      try {
        return paragraphs((await worker.recognize(image)).data.text);
      } catch {
        throw new UnreadableDocument(
          'image',
          'cannot be read: it is corrupt, truncated or in a format OCR does not know',
        );
      }
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/** Tesseract's lines → paragraphs: lines joined (a hyphen at a line's end joins the word), blank lines kept. */
function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .trim()
        .replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2')
        .replace(/\s*\n\s*/g, ' '),
    )
    .filter(Boolean)
    .join('\n\n');
}

/** A decoded image as pdf.js hands it (kind 1: 1 bit grey, 2: RGB, 3: RGBA) → PNG, for the engine. */
export function pixelsToPng(image: { width: number; height: number; kind: number; data: Uint8Array }): Buffer {
  const { width, height, kind, data } = image;
  const png = new PNG({ width, height });
  const rowBytes = Math.ceil(width / 8);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      if (kind === 1) {
        const white = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
        png.data.fill(white, at, at + 3);
      } else {
        const from = (y * width + x) * (kind === 3 ? 4 : 3);
        png.data[at] = data[from]!;
        png.data[at + 1] = data[from + 1]!;
        png.data[at + 2] = data[from + 2]!;
      }
      png.data[at + 3] = 255;
    }
  return PNG.sync.write(png);
}
