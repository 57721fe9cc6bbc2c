// The `links` and `images` request options: restyles our Markdown (inline links, images kept, as cached) at render
// time. Where links and images sit comes from marked's lexer, never from a regex, so code spans and fences stay as
// they are.
import { Lexer, type Token, type Tokens } from 'marked';
import { isDefaultStyle, type MarkdownStyle } from './styles.js';

export {
  DEFAULT_STYLE,
  IMAGE_STYLES,
  LINK_STYLES,
  isDefaultStyle,
  type ImageStyle,
  type LinkStyle,
  type MarkdownStyle,
} from './styles.js';

/** Where a reference label `[n]` sits in the body. */
export interface ReferenceUse {
  number: number;
  start: number;
  end: number;
}

export interface StyledMarkdown {
  /** The restyled Markdown, without the reference list. */
  body: string;
  /** urls[n - 1] is the target of reference n: one number per distinct URL, in order of first appearance. */
  urls: string[];
  /** Every reference label in the body, in order. */
  uses: ReferenceUse[];
}

/** The whole restyled document: the body, then (reference style) the list of every reference. */
export function restyleMarkdown(markdown: string, style: MarkdownStyle): string {
  const styled = styleMarkdown(markdown, style);
  return withDefinitions(styled.body, styled, 0, styled.body.length);
}

/** `part` followed by the definitions of the references whose labels lie in body[from, to). */
export function withDefinitions(part: string, styled: StyledMarkdown, from: number, to: number): string {
  return appendDefinitions(part, definitionsIn(styled, from, to));
}

/** The definition lines (`[n]: url`) of the references whose labels lie in body[from, to), in number order. */
export function definitionsIn(styled: StyledMarkdown, from: number, to: number): string[] {
  const numbers = new Set<number>();
  for (const use of styled.uses) if (use.start >= from && use.end <= to) numbers.add(use.number);
  return [...numbers].sort((a, b) => a - b).map((n) => `[${n}]: ${formatDestination(styled.urls[n - 1]!)}`);
}

export function appendDefinitions(part: string, lines: string[]): string {
  if (lines.length === 0) return part;
  return part ? `${part}\n\n${lines.join('\n')}` : lines.join('\n');
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface Context {
  style: MarkdownStyle;
  links: Record<string, unknown>; // the document's link definitions, for reference links inside link text
  numbers: Map<string, number>;
  urls: string[];
  /** Private-use characters absent from the input: `ref` marks where a label starts, `cut` where something went. */
  ref: string;
  cut: string;
}

/** Blocks with no Markdown links inside: an HTML block's links are HTML, left alone like its other markup. */
const SKIPPED_BLOCKS = new Set(['space', 'code', 'hr', 'html']);

export function styleMarkdown(markdown: string, style: MarkdownStyle): StyledMarkdown {
  if (isDefaultStyle(style)) return { body: markdown, urls: [], uses: [] };
  const tokens = new Lexer({ gfm: true }).lex(markdown);
  const [ref, cut] = unusedCharacters(markdown, 2) as [string, string];
  const context: Context = { style, links: tokens.links, numbers: new Map(), urls: [], ref, cut };
  const edits: Edit[] = [];
  let position = 0;
  // Top-level raws concatenate to the source, so each block's place is known exactly.
  for (const token of tokens) {
    const start = markdown.startsWith(token.raw, position) ? position : markdown.indexOf(token.raw, position);
    if (start < 0) continue;
    position = start + token.raw.length;
    if (!SKIPPED_BLOCKS.has(token.type)) walk(context, [token], markdown, start, position, edits);
  }
  return finish(applyEdits(markdown, edits), context);
}

/**
 * Finds the links, images and definitions of `tokens` in src[from, to), in document order, and records their edits.
 * Nested blocks (list items, quotes) lose their indentation in marked's raws, so each is searched from where the last
 * one ended; code spans, escapes and HTML are stepped over the same way, so a look-alike inside them is never taken.
 */
function walk(context: Context, tokens: Token[], src: string, from: number, to: number, edits: Edit[]): number {
  let cursor = from;
  for (const token of tokens) {
    switch (token.type) {
      case 'link':
      case 'image':
      case 'def':
      case 'codespan':
      case 'escape':
      case 'html':
      case 'code': {
        const found = locate(src, token.raw, cursor, to);
        if (!found) break; // written otherwise in the source: left as is
        cursor = found.end;
        const text = restyleToken(context, token, src.slice(found.start, found.end));
        if (text !== null) edits.push({ ...found, text });
        break;
      }
      case 'list':
        cursor = walk(context, (token as Tokens.List).items, src, cursor, to, edits);
        break;
      case 'table': {
        const table = token as Tokens.Table;
        const cells = [...table.header, ...table.rows.flat()].flatMap((cell) => cell.tokens);
        cursor = walk(context, cells, src, cursor, to, edits);
        break;
      }
      default:
        if ('tokens' in token && token.tokens) cursor = walk(context, token.tokens, src, cursor, to, edits);
    }
  }
  return cursor;
}

/** The replacement for a token as `written` in the source (a nested one with its indentation), or null to keep it. */
function restyleToken(context: Context, token: Token, written: string): string | null {
  const { style, cut } = context;
  if (token.type === 'image') {
    if (style.images === 'none') return cut;
    return style.links === 'inline' ? null : inlineImage(token as Tokens.Image, written);
  }
  if (token.type === 'def') return style.links === 'inline' ? null : cut; // our own numbers replace the publisher's
  if (token.type !== 'link') return null;
  const link = token as Tokens.Link;
  // An autolink's text is its URL: reference would only add tokens, and none keeps the text it shows.
  if (!written.startsWith('[')) return style.links === 'none' ? link.text : null;
  const inner = linkText(written);
  if (inner === null) return null;
  const text = inner.includes('![') ? restyleInline(context, inner) : inner;
  // A link whose text was only images (a linked logo) goes with them; one that never had text says nothing.
  if (visible(text, cut) === '' && (style.links !== 'inline' || visible(inner, cut) !== '')) return cut;
  if (style.links === 'none') return text;
  if (style.links === 'inline') return text === inner ? null : `[${text}${written.slice(1 + inner.length)}`;
  let number = context.numbers.get(link.href);
  if (number === undefined) {
    number = context.urls.push(link.href);
    context.numbers.set(link.href, number);
  }
  return `[${text}]${context.ref}[${number}]`;
}

/** An image written as a reference (`![alt][id]`), written inline: the definitions it needs are gone. */
function inlineImage(image: Tokens.Image, written: string): string | null {
  const alt = linkText(written.slice(1));
  if (alt === null || written[alt.length + 3] === '(') return null;
  const title = image.title ? ` "${image.title.replace(/"/g, '\\"')}"` : '';
  return `![${alt}](${formatDestination(image.href)}${title})`;
}

/** A link's text restyled (its images): lexed on its own, since marked's children of a link lose its escapes. */
function restyleInline(context: Context, text: string): string {
  const lexer = new Lexer({ gfm: true });
  lexer.tokens.links = context.links as typeof lexer.tokens.links;
  const edits: Edit[] = [];
  walk(context, lexer.inlineTokens(text), text, 0, text.length, edits);
  return applyEdits(text, edits);
}

/** The raw text between a link's brackets: up to the `]` that closes the first `[`, past escapes and code spans. */
function linkText(raw: string): string | null {
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '\\') i++;
    else if (ch === '`') {
      const run = /^`+/.exec(raw.slice(i))![0];
      const close = raw.indexOf(run, i + run.length);
      if (close > 0) i = close + run.length - 1;
      else i += run.length - 1;
    } else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return raw.slice(1, i);
  }
  return null;
}

/**
 * Where `raw` is written in src[from, to); lines after its first may carry the indentation or `>` marked removed, and
 * a table cell's pipes their backslash.
 */
function locate(src: string, raw: string, from: number, to: number): { start: number; end: number } | null {
  const found = locateAsIs(src, raw, from, to);
  return found || !raw.includes('|') ? found : locateAsIs(src, raw.replace(/\|/g, '\\|'), from, to);
}

function locateAsIs(src: string, raw: string, from: number, to: number): { start: number; end: number } | null {
  if (!raw.includes('\n')) {
    const start = src.indexOf(raw, from);
    return start >= 0 && start + raw.length <= to ? { start, end: start + raw.length } : null;
  }
  const pattern = new RegExp(raw.split('\n').map(escapeRegExp).join('\\n[ \\t>]*'), 'g');
  pattern.lastIndex = from;
  const match = pattern.exec(src);
  if (!match || match.index + match[0].length > to) return null;
  return { start: match.index, end: match.index + match[0].length };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function applyEdits(src: string, edits: Edit[]): string {
  if (edits.length === 0) return src;
  let out = '';
  let last = 0;
  for (const edit of edits) {
    out += src.slice(last, edit.start) + edit.text;
    last = edit.end;
  }
  return out + src.slice(last);
}

const visible = (text: string, cut: string) => text.split(cut).join('').trim();

/** A line left with nothing but quote, list or heading marks once its images or links went. */
const ONLY_MARKS = /^[ \t>]*(?:[-*+]|\d{1,9}[.)]|#{1,6})?[ \t]*$/;

/**
 * Drops the lines a removal emptied (an image paragraph, a list item of one image) without leaving a run of blank
 * lines, then takes the reference labels' places out of the text.
 */
function finish(edited: string, context: Context): StyledMarkdown {
  const { cut, ref } = context;
  const out: string[] = [];
  let dropped = false;
  for (const line of edited.split('\n')) {
    if (line.includes(cut)) {
      const cleaned = line.replace(new RegExp(`( ?)${cut}+( ?)`, 'g'), (_m, before: string, after: string) =>
        before && after ? ' ' : '',
      );
      if (ONLY_MARKS.test(cleaned)) {
        dropped = true;
        continue;
      }
      out.push(cleaned.trimEnd());
    } else if (line.trim() === '' && dropped && (out.length === 0 || out.at(-1)!.trim() === '')) {
      continue;
    } else {
      out.push(line);
    }
    if (line.trim() !== '') dropped = false;
  }
  const joined = out.join('\n').trimEnd();
  const pieces = joined.split(ref);
  let body = pieces[0]!;
  const uses: ReferenceUse[] = [];
  for (const piece of pieces.slice(1)) {
    const label = /^\[(\d+)\]/.exec(piece)!;
    uses.push({ number: Number(label[1]), start: body.length, end: body.length + label[0].length });
    body += piece;
  }
  return { body, urls: context.urls, uses };
}

/** A definition's destination: bare, or in <> when it holds spaces or parentheses that do not pair up. */
function formatDestination(url: string): string {
  let depth = 0;
  for (const ch of url) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) break;
  }
  if (depth === 0 && !/[\s<>]/.test(url) && url !== '') return url;
  return `<${url.replace(/</g, '%3C').replace(/>/g, '%3E')}>`;
}

function unusedCharacters(text: string, count: number): string[] {
  const found: string[] = [];
  for (let code = 0xe000; found.length < count; code++) {
    const ch = String.fromCharCode(code);
    if (!text.includes(ch)) found.push(ch);
  }
  return found;
}
