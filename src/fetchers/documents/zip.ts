// Zip-based files (DOCX, XLSX, PPTX, ODS, EPUB) opened within bounds: the entry count and the bytes the entries
// inflate to are checked against DocumentLimits before anything is inflated, and each entry inflates into a buffer
// of its declared size, so an entry that lies about its size is cut there rather than filling memory (zip bombs).
import { unzipSync, zipSync, type Unzipped } from 'fflate';
import { UnreadableDocument, type DocumentLimits, type DocumentType } from './types.js';

/** Inflates the entries `wanted` keeps (all by default), within `limits`; the archive's own faults are unreadable. */
export function openZip(
  body: Uint8Array,
  type: DocumentType,
  limits: DocumentLimits,
  wanted: (name: string) => boolean = () => true,
): Unzipped {
  let entries = 0;
  let bytes = 0;
  try {
    return unzipSync(body, {
      filter: (file) => {
        if (++entries > limits.maxEntries)
          throw new UnreadableDocument(type, `holds more than ${limits.maxEntries} entries`);
        if (!wanted(file.name)) return false;
        bytes += file.originalSize;
        if (bytes > limits.maxUncompressedBytes)
          throw new UnreadableDocument(
            type,
            `unpacks to more than ${limits.maxUncompressedBytes} bytes (${file.name} alone claims ${file.originalSize})`,
          );
        return true;
      },
    });
  } catch (error) {
    if (error instanceof UnreadableDocument) throw error;
    throw new UnreadableDocument(type, 'is not a readable zip archive (corrupt or truncated)');
  }
}

/**
 * The same entries stored again uncompressed, for libraries that unzip on their own (mammoth, exceljs): what they
 * inflate is then exactly what openZip allowed.
 */
export function repack(entries: Unzipped): Uint8Array {
  return zipSync(entries, { level: 0 });
}

/** An entry as UTF-8 text; undefined when the archive does not hold it. */
export function entryText(entries: Unzipped, name: string): string | undefined {
  const bytes = entries[name];
  return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
