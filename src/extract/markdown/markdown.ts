// HTML → GitHub-flavoured Markdown with mdream (chosen by measurement, see docs/extraction.md), then tidied to the
// guarantees the API gives: outside code blocks at most one blank line in a row and no trailing whitespace; no
// U+FEFF; the title as an H1. Code blocks keep their text exactly.
import { htmlToMarkdown } from '@mdream/js';
import { capNesting } from './nesting.js';
import { continuationPrefix, restoreVerbatim } from './verbatim.js';

/** Collapses whitespace and drops Markdown escapes so a heading and a title can be compared. */
function normaliseForComparison(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** A fence line: its quote markers and indentation, the fence, and the rest (an opener's info string). */
const FENCE_LINE = /^([ >]*?)(`{3,}|~{3,})(.*)$/;

interface Fence {
  marker: string;
  quoteDepth: number;
}

function quoteDepth(prefix: string): number {
  let depth = 0;
  for (const char of prefix) if (char === '>') depth++;
  return depth;
}

/** The fence a line opens, if it opens one (a backtick fence's info string holds no backtick). */
function openedFence(line: string): Fence | null {
  const match = FENCE_LINE.exec(line);
  if (!match || (match[2]!.startsWith('`') && match[3]!.includes('`'))) return null;
  return { marker: match[2]!, quoteDepth: quoteDepth(match[1]!) };
}

/** Whether a line closes `fence`: the same character, at least as many, nothing after, at the same quote depth. */
function closesFence(line: string, fence: Fence): boolean {
  const match = FENCE_LINE.exec(line);
  return (
    !!match &&
    match[2]![0] === fence.marker[0] &&
    match[2]!.length >= fence.marker.length &&
    match[3]!.trim() === '' &&
    quoteDepth(match[1]!) === fence.quoteDepth
  );
}

/**
 * Calls `visit` with each line, its index, for a line of fenced code (fences included) the quote depth of its fence
 * (else null), and whether the line opens a fence. An unclosed fence (a slice cut to a token budget) runs to the end.
 */
function forEachLine(
  lines: string[],
  visit: (line: string, index: number, codeDepth: number | null, opensFence: boolean) => void,
): void {
  let fence: Fence | null = null;
  lines.forEach((line, index) => {
    if (fence) {
      visit(line, index, fence.quoteDepth, false);
      if (closesFence(line, fence)) fence = null;
      return;
    }
    fence = openedFence(line);
    visit(line, index, fence ? fence.quoteDepth : null, fence !== null);
  });
}

const INVISIBLE_LINE = /^[\s\u200b-\u200d\u2060]+$/;
/** No-break spaces with the spaces around them: mdream adds a space before a link that follows one. */
const NO_BREAK_SPACE = / ?\u00a0[\u00a0 ]*/g;

/**
 * Applies the output guarantees to any Markdown or text (also used for publisher Markdown and plain text): no U+FEFF,
 * CRLF as LF, and outside fenced code no no-break spaces, no trailing whitespace, no line of zero-width characters
 * alone and at most one blank line in a row.
 */
export function tidyMarkdown(markdown: string): string {
  // U+FEFF and NUL are never text (a NUL ends the string for C-based readers of our output).
  const lines = markdown
    .replace(/[\uFEFF\u0000]/g, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const kept: string[] = [];
  let previousBlank = true;
  forEachLine(lines, (line, _index, codeDepth) => {
    if (codeDepth !== null) {
      kept.push(line);
      previousBlank = false;
      return;
    }
    // A no-break space (`&nbsp;`) only steers a browser's line wrapping; to a reader it is a space, and it costs a
    // token of its own where a space joins the next word. A run of them is one space too: as indentation, four would
    // start a code block. Trimmed line by line: the regex /[ \t]+$/gm takes quadratic
    // time on a long run of spaces.
    let trimmed = line.replace(NO_BREAK_SPACE, ' ').trimEnd();
    // A paragraph of a zero-width joiner or space alone is a spacer some site builders put between sections.
    if (INVISIBLE_LINE.test(trimmed)) trimmed = '';
    if (trimmed === '' && previousBlank) return;
    kept.push(trimmed);
    previousBlank = trimmed === '';
  });
  return kept.join('\n').trimEnd();
}

/** Escapes what would make a title read as other Markdown, so `# title` stays one plain heading. */
function escapeTitle(title: string): string {
  return title.replace(/([\\`*_[\]<>])/g, '\\$1');
}

/** Puts `# title` first unless the content already opens with a heading that says the same. */
export function prependTitle(markdown: string, title: string | null): string {
  if (!title) return markdown;
  const heading = `# ${escapeTitle(title)}`;
  const firstLine = /^(#{1,6}) +(.*)$/.exec(markdown.split('\n', 1)[0] ?? '');
  if (firstLine && normaliseForComparison(firstLine[2] ?? '') === normaliseForComparison(title)) {
    return firstLine[1] === '#' ? markdown : heading + markdown.slice(firstLine[0].length);
  }
  return markdown ? `${heading}\n\n${markdown}` : heading;
}

/** Inline links and images: `[text](url "title")`, `![alt](<url>)`; brackets and parentheses one level deep. */
const INLINE_LINK =
  /(!?)\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)((?:\s+"[^"\n]{0,500}")?\s*)\)/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Makes the links and images of publisher Markdown absolute and drops data: and javascript: targets (an image goes,
 * a link keeps its text), leaving fenced code alone.
 */
export function resolveMarkdownUrls(markdown: string, baseUrl: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const opener = FENCE.exec(line)?.[1];
      if (opener && (fence === null || opener.startsWith(fence))) {
        fence = fence === null ? opener : null;
        return line;
      }
      if (fence !== null) return line;
      return line.replace(INLINE_LINK, (match, bang: string, text: string, target: string, title: string) => {
        const raw = target.startsWith('<') ? target.slice(1, -1) : target;
        if (/^\s*(?:data|javascript|vbscript):/i.test(raw)) return bang ? '' : text;
        // Absolute targets stay as the publisher wrote them.
        if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) return match;
        let url: string;
        try {
          url = new URL(raw, baseUrl).href;
        } catch {
          return match;
        }
        return `${bang}[${text}](${/[\s()]/.test(url) ? `<${url}>` : url}${title})`;
      });
    })
    .join('\n');
}

/** A line that is only blockquote markers (or nothing): a blank line inside a quote. */
const BLANK_IN_QUOTE = /^[ >]*$/;
const HEADING = /^[ >]*#{1,6} /;
const TABLE_ROW = /^[ >]*\|/;
const LIST_ITEM = /^ *(?:[-*+]|\d{1,9}[.)]) /;
/**
 * What starts a block, after the quote markers and indentation: a hard break before it would be a literal backslash.
 */
const BLOCK_START = /^[ >]*(?:[-*+] |\d{1,9}[.)] |#{1,6} |`{3}|~{3}|\||$)/;

/**
 * A line break (`<br>`) comes from mdream as two trailing spaces, which the no-trailing-whitespace guarantee would
 * remove: it becomes GFM's other hard break, a backslash. mdream writes an empty table cell `|  |` inside a row and
 * `| |` at its end: the same, once.
 */
function writeBreaksAndCells(lines: string[]): void {
  forEachLine(lines, (line, index, codeDepth) => {
    if (codeDepth !== null) return;
    const next = lines[index + 1];
    if (
      line.endsWith('  ') &&
      /\S {2,}$/.test(line) &&
      !HEADING.test(line) &&
      next !== undefined &&
      !BLOCK_START.test(next)
    ) {
      lines[index] = `${line.trimEnd()}\\`;
      // The space after a <br> in the page starts the next line: it shows nothing, in Markdown or on the page.
      const prefix = continuationPrefix(line);
      if (next.startsWith(`${prefix} `)) lines[index + 1] = prefix + next.slice(prefix.length).trimStart();
    }
    if (TABLE_ROW.test(line) && line.includes('|  |')) lines[index] = lines[index]!.replace(/\| {2}(?=\|)/g, '| ');
  });
}

/**
 * A quote nested in a quote, or a quote's end, comes with no blank line (`> a` then `> > b`, read as `a` with `> b` in
 * it, and worse after a code fence): a line of the shallower quote's markers goes between.
 */
function separateQuoteDepths(lines: string[], separators: Map<number, string>): void {
  let previous: { depth: number; index: number } | null = null;
  forEachLine(lines, (line, index, codeDepth) => {
    if (codeDepth === null && BLANK_IN_QUOTE.test(line)) {
      previous = null;
      return;
    }
    const depth = codeDepth ?? quoteDepth(/^[ >]*/.exec(line)![0]);
    if (previous && previous.index === index - 1 && previous.depth !== depth) {
      const shallower = Math.min(previous.depth, depth);
      separators.set(index, shallower === 0 ? '' : Array(shallower).fill('>').join(' '));
    }
    previous = { depth, index };
  });
}

/**
 * In a loose list (an item holds paragraphs or code separated by blank lines) mdream leaves the blank line out before
 * some items (`   more text` then `2. next`): it goes in, so that every item of that list is set apart alike.
 */
function separateLooseListItems(lines: string[], separators: Map<number, string>): void {
  /** The items open at each indentation, and whether a blank line came inside the current one. */
  const open: { indent: number; blank: boolean }[] = [];
  forEachLine(lines, (line, index, codeDepth, opensFence) => {
    // Of a code block only the opening fence counts, as a line of the item it sits in.
    const inCode = codeDepth !== null;
    if (inCode && !opensFence) return;
    if (line.trim() === '') {
      for (const item of open) item.blank = true;
      return;
    }
    const indent = line.length - line.trimStart().length;
    const marker = inCode ? null : LIST_ITEM.exec(line);
    while (open.length > 0 && (marker ? open.at(-1)!.indent > indent : open.at(-1)!.indent >= indent)) open.pop();
    if (!marker) return;
    const same = open.at(-1)?.indent === indent ? open.at(-1) : undefined;
    const before = lines[index - 1];
    if (same?.blank && before !== undefined && before.trim() !== '' && !LIST_ITEM.test(before))
      separators.set(index, '');
    if (same) same.blank = false;
    else open.push({ indent, blank: false });
  });
}

/** Fixes mdream's line structure: hard breaks, empty cells, blank lines between quote depths and loose list items. */
function fixLineStructure(markdown: string): string {
  const lines = markdown.split('\n');
  writeBreaksAndCells(lines);
  const separators = new Map<number, string>();
  separateQuoteDepths(lines, separators);
  separateLooseListItems(lines, separators);
  if (separators.size === 0) return lines.join('\n');
  return lines.flatMap((line, index) => (separators.has(index) ? [separators.get(index)!, line] : [line])).join('\n');
}

/**
 * Emphasis closed and reopened with nothing between (`<b>B</b><b>USINESS</b>`, a drop cap) is one run: converted apart
 * it gives `**B****USINESS**`, which no Markdown reader parses back, and whose `**` leaked into plain text.
 */
const ADJACENT_EMPHASIS = /<\/(strong|b|em|i)\s*><\1(?:\s[^<>]{0,200})?>/gi;

export function convertToMarkdown(contentHtml: string): string {
  const html = capNesting(contentHtml).replace(ADJACENT_EMPHASIS, '');
  return tidyMarkdown(fixLineStructure(restoreVerbatim(htmlToMarkdown(html))));
}
