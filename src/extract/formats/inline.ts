// Inline Markdown tokens (marked's lexer) → plain text, collecting the links and images met on the way.
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument
   -- marked's Token union includes Tokens.Generic, whose fields are `any` */
import type { Token } from 'marked';

export interface LinkRef {
  text: string;
  url: string;
}

export interface InlineSink {
  links: LinkRef[];
  images: { alt: string; url: string }[];
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
};

/** Markdown keeps character references literally; plain text shows what they stand for. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (match, ref: string) => {
    if (ref[0] !== '#') return NAMED_ENTITIES[ref.toLowerCase()] ?? match;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && code !== 0xfeff ? String.fromCodePoint(code) : '';
  });
}

export function renderInline(tokens: Token[] | undefined, sink: InlineSink): string {
  let out = '';
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'text':
        out += token.tokens ? renderInline(token.tokens, sink) : decodeEntities(token.text);
        break;
      case 'escape':
      case 'codespan':
        out += token.text;
        break;
      case 'br':
        out += '\n';
        break;
      case 'link': {
        const imagesBefore = sink.images.length;
        const text = renderInline(token.tokens, sink);
        // A linked logo or thumbnail has no text: its alt text says what the link is.
        const label =
          text.trim() ||
          sink.images
            .slice(imagesBefore)
            .map((image) => image.alt)
            .join(' ')
            .trim();
        sink.links.push({ text: label, url: token.href });
        out += text;
        break;
      }
      case 'image':
        sink.images.push({ alt: decodeEntities(token.text), url: token.href });
        break;
      case 'html':
        // Inline tags (<sup>, <kbd>) are markup only: the text between them is its own token.
        if (/^<br\s*\/?>$/i.test(token.text)) out += '\n';
        break;
      default:
        out += 'tokens' in token && token.tokens ? renderInline(token.tokens, sink) : '';
    }
  }
  return out;
}
