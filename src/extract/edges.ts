// Bylines, datelines, "Share", "Advertisement", "Comments are closed", a trailing "Most popular" heading: the short
// lines around an article's text that Readability keeps because they share its container. Leading and trailing
// Markdown lines too short to be a sentence go; images, code, tables and headings that open the text stay.

/** Fewer words than this is a label ("Updated 11:21 pm", "By Jane Doe", "Share"), not a sentence. */
const MIN_WORDS = 6;
const IMAGE_LINE = /^\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?$/;
const HEADING = /^#{1,6} /;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

/** Words, counting each CJK character as half a word (those scripts put no spaces between words). */
export function wordCount(text: string): number {
  const spaced = text.split(/\s+/).filter(Boolean).length;
  return spaced + (text.match(CJK)?.length ?? 0) / 2;
}

/** Code fences and table rows are content at any length; a sentence needs a few words. */
function isSubstantial(line: string): boolean {
  return line.startsWith('```') || line.startsWith('|') || (!HEADING.test(line) && wordCount(line) >= MIN_WORDS);
}

/** The first substantial line, with the heading right before it that belongs to it. */
function firstKept(lines: string[], first: number): number {
  let before = first - 1;
  while (before >= 0 && lines[before]!.trim() === '') before--;
  return before >= 0 && HEADING.test(lines[before]!) ? before : first;
}

export function trimShortEdges(markdown: string): string {
  const lines = markdown.split('\n');
  const first = lines.findIndex(isSubstantial);
  // Without a single sentence, the short lines are all there is: a list of names, a table of contents.
  if (first < 0) return markdown;
  const start = firstKept(lines, first);
  let end = lines.length - 1;
  while (end > start && !isSubstantial(lines[end]!) && !IMAGE_LINE.test(lines[end]!.trim())) end--;
  const images = lines.slice(0, start).filter((line) => IMAGE_LINE.test(line.trim()));
  return [...images.flatMap((image) => [image, '']), ...lines.slice(start, end + 1)].join('\n');
}
