// Bylines, datelines, "Share", "Advertisement", "Comments are closed", a trailing "Most popular" heading: the short
// lines around an article's text that Readability keeps because they share its container. Leading and trailing
// Markdown lines too short to be a sentence go; images, code, tables and headings that open the text stay.

/** Fewer words than this is a label ("Updated 11:21 pm", "By Jane Doe", "Share"), not a sentence. */
const MIN_WORDS = 6;
const IMAGE_LINE = /^\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?$/;
/** A line of images none of which says what it shows: icons and badges (share buttons, app stores), not photos. */
const ICON_LINE = /^(?:\[?!\[\]\([^)]*\)(?:\]\([^)]*\))?\s*)+$/;
const HEADING = /^#{1,6} /;
/**
 * A list that ends the article is its content (steps, sources, a list of parts): link lists and teaser lists are gone
 * before this pass (dropLinkLists), so a trailing list item is kept at any length.
 */
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+\S/;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

/** Words, counting each CJK character as half a word (those scripts put no spaces between words). */
export function wordCount(text: string): number {
  const spaced = text.split(/\s+/).filter(Boolean).length;
  return spaced + (text.match(CJK)?.length ?? 0) / 2;
}

/** What a reader sees of a line: link text and image alt text, not their URLs. */
function visibleText(line: string): string {
  // Images first: a linked image `[![alt](src)](href)` is an image inside a link.
  return line.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
}

/** Code fences and table rows are content at any length; a sentence needs a few words. */
function isSubstantial(line: string): boolean {
  return (
    line.startsWith('```') || line.startsWith('|') || (!HEADING.test(line) && wordCount(visibleText(line)) >= MIN_WORDS)
  );
}

/** The first substantial line, with the heading right before it that belongs to it. */
function firstKept(lines: string[], first: number): number {
  let before = first - 1;
  while (before >= 0 && lines[before]!.trim() === '') before--;
  return before >= 0 && HEADING.test(lines[before]!) ? before : first;
}

function isPhoto(line: string): boolean {
  return IMAGE_LINE.test(line) && !ICON_LINE.test(line);
}

export function trimShortEdges(markdown: string): string {
  const lines = markdown.split('\n');
  const first = lines.findIndex(isSubstantial);
  // Without a single sentence, the short lines are all there is: a list of names, a table of contents.
  if (first < 0) return markdown;
  const start = firstKept(lines, first);
  let end = lines.length - 1;
  while (end > start && !isSubstantial(lines[end]!) && !isPhoto(lines[end]!.trim()) && !LIST_ITEM.test(lines[end]!))
    end--;
  const images = lines.slice(0, start).filter((line) => isPhoto(line.trim()));
  return [...images.flatMap((image) => [image, '']), ...lines.slice(start, end + 1)].join('\n');
}

const EMPTY_ITEM = /^\s*(?:[-*+]|\d+[.)])\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * A paragraph or heading that says again what the line before it said: one block in two copies, the hover face and
 * the resting face of a card, or a carousel's loop. List items and table rows may repeat a value on purpose.
 */
function repeatsLine(line: string, previous: string | undefined): boolean {
  return line === previous && !line.startsWith('|') && !LIST_ITEM.test(line) && wordCount(visibleText(line)) >= 2;
}

/**
 * List items with nothing in them (widget slots: video carousels, ad placeholders whose content was script-made), and
 * lines that repeat the line before them (repeatsLine). Code is kept as it is.
 */
export function dropEmptyAndRepeatedLines(markdown: string): string {
  let fence: string | null = null;
  const kept: string[] = [];
  let previous: string | undefined;
  for (const line of markdown.split('\n')) {
    const opener = FENCE.exec(line)?.[1];
    if (opener && (fence === null || opener.startsWith(fence))) fence = fence === null ? opener : null;
    else if (fence === null && (EMPTY_ITEM.test(line) || repeatsLine(line, previous))) continue;
    // A dropped item leaves its blank lines behind: keep one, and every blank line of code as it is.
    if (fence === null && line === '' && kept.at(-1) === '') continue;
    kept.push(line);
    if (line.trim() !== '') previous = fence === null ? line : undefined;
  }
  return kept.join('\n');
}
