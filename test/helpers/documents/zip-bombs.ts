// Zip-based files that cost more to open than they are worth, made from a real file of the format: one whose entry
// inflates past the limit (mostly zeros, which deflate ~1000:1), one with more entries than the limit allows.
import { unzipSync, zipSync, type Zippable } from 'fflate';

/** `file` with one more entry of `bytes` zeros: a few KB on the wire, `bytes` once inflated. */
export function withInflatingEntry(file: Buffer, name: string, bytes: number): Buffer {
  const entries: Zippable = unzipSync(file);
  entries[name] = [new Uint8Array(bytes), { level: 9 }];
  return Buffer.from(zipSync(entries));
}

/** `file` with `count` more empty entries. */
export function withManyEntries(file: Buffer, count: number): Buffer {
  const entries: Zippable = unzipSync(file);
  for (let i = 0; i < count; i++) entries[`customXml/item${i}.xml`] = new Uint8Array(0);
  return Buffer.from(zipSync(entries, { level: 0 }));
}
