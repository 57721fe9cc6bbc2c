// A product's description as its JSON-LD gives it, for the pages whose visible copy a script renders or hides in a
// drawer the extraction does not keep: shops put the same text in their Product node for search engines.
import { decodeEntities } from '../formats/inline.js';
import { readProductDescription } from './jsonld.js';

/** Shorter descriptions are a tagline or the name again, not the copy the body lacks. */
const MIN_DESCRIPTION = 100;
/** Fewer space-separated words than this is not prose: an encoded string (`An%20elegant%20sofa…`), a code. */
const MIN_WORDS = 10;
/** Share of the description's words the body must hold already for it to count as there. */
const PRESENT = 0.5;

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The JSON-LD product description as paragraphs of plain text (its HTML, escaped or not, undone). */
function plainDescription(raw: string): string {
  const html = decodeEntities(raw);
  return decodeEntities(
    html
      .replace(/<(?:br|\/p|\/li|\/h[1-6]|\/div)\b[^<>]*>/gi, '\n')
      .replace(/<[^<>]*>/g, ' ')
      .replace(/\\n/g, '\n'),
  )
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

/** The description, when the extracted body lacks most of its words; else null. */
export function missingProductDescription(jsonLd: readonly string[], body: string): string | null {
  const raw = readProductDescription(jsonLd);
  if (!raw) return null;
  const description = plainDescription(raw);
  if (description.length < MIN_DESCRIPTION || description.split(/\s+/).length < MIN_WORDS) return null;
  const inBody = new Set(words(body));
  const own = words(description);
  const found = own.filter((word) => inBody.has(word)).length;
  return found >= PRESENT * own.length ? null : description;
}
