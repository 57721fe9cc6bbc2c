// The baseline every extraction figure is compared with: Readability.js on linkedom, as Jina Reader and MCP fetch use
// it, returning its textContent. The published Readability (the `readability-unpatched` alias of the same version),
// not the copy our pipeline runs, which patches/ makes cheaper: the baseline is the library as others use it.
import { Readability } from 'readability-unpatched';
import { DOMParser } from 'linkedom';

export function extractWithReadability(html: string): string {
  try {
    const doc = new DOMParser().parseFromString(html, 'text/html') as unknown as Document;
    return new Readability(doc).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}
