// Markdown → typed blocks and every link, for format=json. Works on any slice of our Markdown, since trimming to a
// token budget may cut a list or leave a code fence open.
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument,
   @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access
   -- marked's Token union includes Tokens.Generic, whose fields are `any` */
import { Lexer, type MarkedOptions, type Token, type TokenizerExtensionFunction, type Tokens } from 'marked';
import { decodeEntities, renderInline, type InlineSink, type LinkRef } from './inline.js';
import type { DocumentBlock, ListItemBlock } from './blocks.js';
import { renderBlocksAsText } from './text.js';

export interface MarkdownDocument {
  blocks: DocumentBlock[];
  links: LinkRef[];
}

/**
 * A GFM footnote definition, `[^label]: text` (continued by indented lines): marked would take it for a link
 * definition and drop it. Its reference `[^label]` would then be a link; both read as `[label]` in text.
 */
const FOOTNOTE_DEFINITION = /^\[\^([^\]\s]{1,100})\]:[ \t]*([^\n]*(?:\n(?: {4}|\t)[^\n]*)*)(?:\n|$)/;
const FOOTNOTE_REFERENCE = /^\[\^([^\]\s]{1,100})\]/;

const footnoteDefinition: TokenizerExtensionFunction = function (src) {
  const match = FOOTNOTE_DEFINITION.exec(src);
  if (!match) return undefined;
  const text = match[2]!.replace(/\n\s+/g, ' ');
  return { type: 'footnote', raw: match[0], label: match[1], tokens: this.lexer.inlineTokens(text) };
};

// Tried at every `[` of inline text, before links: without a `start` function marked's text rule already stops there.
const footnoteReference: TokenizerExtensionFunction = (src) => {
  const match = FOOTNOTE_REFERENCE.exec(src);
  return match ? { type: 'text', raw: match[0], text: `[${match[1]}]` } : undefined;
};

const LEXER_OPTIONS: MarkedOptions = {
  gfm: true,
  extensions: { renderers: {}, childTokens: {}, block: [footnoteDefinition], inline: [footnoteReference] },
};

function stripTags(html: string): string {
  return decodeEntities(html.replace(/<[^<>]*>/g, ' '))
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** Text and images of inline content; the images follow as blocks of their own. */
function pushInline(
  tokens: Token[] | undefined,
  sink: InlineSink,
  blocks: DocumentBlock[],
  make: (text: string) => DocumentBlock,
): void {
  const before = sink.images.length;
  const text = renderInline(tokens, sink).trim();
  if (text) blocks.push(make(text));
  for (const image of sink.images.slice(before)) blocks.push({ type: 'image', ...image });
}

function convertListItem(item: Tokens.ListItem, sink: InlineSink): ListItemBlock {
  const lead: string[] = [];
  const rest: Token[] = [];
  for (const token of item.tokens) {
    if (rest.length === 0 && (token.type === 'text' || token.type === 'paragraph')) {
      lead.push(
        renderInline((token as Tokens.Text).tokens ?? [{ type: 'text', raw: token.raw, text: token.raw }], sink).trim(),
      );
    } else if (token.type !== 'space') rest.push(token);
  }
  const children = convertBlocks(rest, sink);
  return children.length > 0 ? { text: lead.join('\n'), children } : { text: lead.join('\n') };
}

function convertBlocks(tokens: Token[], sink: InlineSink): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'heading':
        pushInline(token.tokens, sink, blocks, (text) => ({ type: 'heading', level: token.depth, text }));
        break;
      case 'paragraph':
      case 'text':
        pushInline(token.tokens ?? [{ type: 'text', raw: token.raw, text: token.text }], sink, blocks, (text) => ({
          type: 'paragraph',
          text,
        }));
        break;
      case 'list': {
        const list = token as Tokens.List;
        const start = list.ordered && typeof list.start === 'number' ? { start: list.start } : {};
        blocks.push({
          type: 'list',
          ordered: list.ordered,
          ...start,
          items: list.items.map((item) => convertListItem(item, sink)),
        });
        break;
      }
      case 'table': {
        const table = token as Tokens.Table;
        const cell = (c: Tokens.TableCell) => renderInline(c.tokens, sink).trim();
        blocks.push({ type: 'table', header: table.header.map(cell), rows: table.rows.map((row) => row.map(cell)) });
        break;
      }
      case 'code':
        blocks.push({ type: 'code', language: token.lang?.trim().split(/\s/)[0] || null, code: token.text });
        break;
      case 'blockquote': {
        const text = renderBlocksAsText(convertBlocks(token.tokens ?? [], sink));
        if (text) blocks.push({ type: 'blockquote', text });
        break;
      }
      case 'hr':
        blocks.push({ type: 'thematic_break' });
        break;
      case 'footnote': {
        const note = renderInline(token.tokens, sink).trim();
        blocks.push({ type: 'paragraph', text: `[${token['label']}] ${note}`.trim() });
        break;
      }
      case 'html': {
        const text = stripTags(token.text);
        if (text) blocks.push({ type: 'paragraph', text });
        break;
      }
      default:
        // space and link definitions carry no content of their own.
        break;
    }
  }
  return blocks;
}

export function markdownToDocument(markdown: string): MarkdownDocument {
  const sink: InlineSink = { links: [], images: [] };
  // Most Markdown has no footnote: the plain lexer spares an extension call at every block and every `[`.
  const blocks = convertBlocks(new Lexer(markdown.includes('[^') ? LEXER_OPTIONS : { gfm: true }).lex(markdown), sink);
  const seen = new Set<string>();
  const links = sink.links.filter((link) => {
    const key = `${link.url}\n${link.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { blocks, links };
}
