// A cap on how deep quotes and lists nest before Markdown conversion. Each level repeats its marker on every line
// inside it, and the converter's cost grows faster than the square of the depth: a hostile page of a thousand nested
// quotes would hold the process for minutes. Past MAX_NESTING levels the tags go and their text stays.

export const MAX_NESTING = 24;

const NESTING_TAG = /<(\/?)(blockquote|ul|ol|dl)\b[^>]*>/gi;

/** The HTML with every blockquote, ul, ol or dl deeper than `max` levels unwrapped; one linear pass over the tags. */
export function capNesting(html: string, max = MAX_NESTING): string {
  let depth = 0;
  let deepest = 0;
  const capped = html.replace(NESTING_TAG, (tag: string, closing: string) => {
    if (closing) {
      depth = Math.max(0, depth - 1);
      return depth >= max ? '' : tag;
    }
    depth++;
    deepest = Math.max(deepest, depth);
    return depth > max ? '' : tag;
  });
  return deepest > max ? capped : html;
}
