// The wire contract of reading documents: `pages` (part of a long PDF) and `page_markers`, on /fetch, /fetch/batch,
// GET /r/, the MCP tools and the CLI; checkDocument() turns them into the fetchers' DocumentRequest.
import { Type, type Static } from '@sinclair/typebox';
import { FieldError } from '../errors.js';
import type { DocumentRequest, PageRange } from '../fetchers/types.js';

/** A page list longer than this is not a reading plan but a way to make the service loop. */
export const MAX_PAGE_RANGES = 50;
/** Page numbers above this are not in any PDF that PDF_MAX_PAGES would let be read. */
const MAX_PAGE_NUMBER = 100_000;

export const DocumentFields = {
  pages: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'PDFs: the pages to read, counted from 1: a page (`3`), a range (`1-5`) or a list of both (`2-4,7`). ' +
        'Pages past the end of the document are left out; none there is a 422. Other content ignores it. ' +
        'Read apart from (and cached apart from) the whole document.',
      examples: ['1-5'],
    }),
  ),
  page_markers: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'PDFs: mark where each page begins, `<!-- page N -->` in Markdown (N: its number in the PDF) and a form ' +
        'feed in text. Other content ignores it.',
    }),
  ),
};

export type DocumentInput = { [K in keyof typeof DocumentFields]?: Static<(typeof DocumentFields)[K]> };

const RANGE = /^(\d+)(?:-(\d+))?$/;

/** "2-4,7" → ranges; a 422 at `pages` that says what is wrong with it. */
export function parsePages(pages: string): PageRange[] {
  const fail = (msg: string) => FieldError.of(['pages'], msg, 'value_error');
  const parts = pages.replace(/\s+/g, '').split(',');
  if (parts.length > MAX_PAGE_RANGES) throw fail(`Give at most ${MAX_PAGE_RANGES} pages or ranges`);
  return parts.map((part) => {
    const match = RANGE.exec(part);
    if (!match) throw fail(`${JSON.stringify(part)} is not a page or a range: write pages as 3, 1-5 or 2-4,7`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1) throw fail('Pages are counted from 1');
    if (last < first) throw fail(`The range ${part} ends before it starts`);
    if (last > MAX_PAGE_NUMBER) throw fail(`Page numbers go up to ${MAX_PAGE_NUMBER}`);
    return { first, last };
  });
}

/** What a caller asks of a document, checked; undefined when it asks nothing (the whole document, unmarked). */
export function checkDocument(input: DocumentInput): DocumentRequest | undefined {
  const pages = input.pages === undefined ? undefined : parsePages(input.pages);
  if (!pages && !input.page_markers) return undefined;
  return { ...(pages && { pages }), ...(input.page_markers && { pageMarkers: true }) };
}
