// The baseline every extraction figure is compared with: Readability.js on linkedom, as Jina Reader and MCP fetch use
// it, returning its textContent.
import { Readability } from '@mozilla/readability';
import { DOMParser } from 'linkedom';

export function extractWithReadability(html: string): string {
  try {
    const doc = new DOMParser().parseFromString(html, 'text/html') as unknown as Document;
    return new Readability(doc).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}
