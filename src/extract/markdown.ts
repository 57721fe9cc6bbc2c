// HTML → GitHub-flavoured Markdown with mdream (chosen by measurement, see docs/extraction.md), then tidied to the
// guarantees the API gives: at most one blank line in a row, no trailing whitespace, no U+FEFF, the title as an H1.
import { htmlToMarkdown } from 'mdream';

/** Collapses whitespace and drops Markdown escapes so a heading and a title can be compared. */
function normaliseForComparison(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Applies the output guarantees to any Markdown or text (also used for publisher Markdown and plain text). */
export function tidyMarkdown(markdown: string): string {
  // Trailing whitespace is trimmed line by line: the regex /[ \t]+$/gm takes quadratic time on a long run of spaces.
  return markdown
    .replace(/\uFEFF/g, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd();
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
const INLINE_LINK = /(!?)\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)((?:\s+"[^"\n]{0,500}")?\s*)\)/g;
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

export function convertToMarkdown(contentHtml: string): string {
  return tidyMarkdown(htmlToMarkdown(contentHtml));
}
