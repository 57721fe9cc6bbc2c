// Markdown that mdream must pass through untouched (`$x_1$`, `[^1]`, a definition's `: `): cleaning puts it in the DOM
// as a hex-encoded token between two Unicode noncharacters, which no page text holds and mdream neither escapes nor
// splits, and conversion decodes it afterwards.

/** U+FDD0 and U+FDD1: noncharacters, reserved by Unicode for a program's internal use, never in interchanged text. */
const OPEN = '\uFDD0';
const CLOSE = '\uFDD1';
const TOKEN = /\uFDD0([0-9a-f]*)\uFDD1/g;

/** UTF-16 code units as hex: Buffer does it natively, which matters for a page of code. */
function encode(markdown: string): string {
  return OPEN + Buffer.from(markdown, 'utf16le').toString('hex') + CLOSE;
}

function decode(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf16le');
}

/** A text node that comes out of the conversion as exactly `markdown`; a `\n` in it continues the line's block. */
export function createVerbatim(doc: Document, markdown: string): Text {
  return doc.createTextNode(encode(markdown));
}

/**
 * Where a line's content starts: the blockquote markers, then the list marker or indentation turned into spaces, so
 * that a line break inside the line's text stays in the same quote and list item.
 */
export function continuationPrefix(line: string): string {
  const match = /^((?: {0,3}>[ ]?)*)( *(?:(?:[-*+]|\d{1,9}[.)]) +)?)/.exec(line);
  return (match?.[1] ?? '') + ' '.repeat(match?.[2]?.length ?? 0);
}

/** Decodes every verbatim token of mdream's output; a line break inside one gets the prefix of its line. */
export function restoreVerbatim(markdown: string): string {
  if (!markdown.includes(OPEN)) return markdown;
  return markdown
    .split('\n')
    .map((line) => {
      if (!line.includes(OPEN)) return line;
      const decoded = line.replace(TOKEN, (_match, hex: string) => decode(hex));
      if (!decoded.includes('\n')) return decoded;
      const prefix = continuationPrefix(line);
      const [first, ...rest] = decoded.split('\n');
      // An empty line (a blank line of code) gets the prefix without its trailing spaces.
      return [first, ...rest.map((part) => (part === '' ? prefix.trimEnd() : prefix + part))].join('\n');
    })
    .join('\n');
}
