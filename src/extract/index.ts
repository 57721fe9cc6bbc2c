// Main-content extraction: HTML of a page → title, description, language, GFM Markdown and plain text; plus the
// Markdown → typed blocks conversion behind format=json. Nothing here throws on any input.
import { extractFullContent } from './content/boilerplate.js';
import { restoreBylines } from './content/bylines.js';
import { cleanContent } from './clean/clean.js';
import type { DocumentBlock } from './formats/blocks.js';
import { markdownToDocument, type MarkdownDocument } from './formats/document.js';
import { declaresPageNotPost, looksLikeLandingPage } from './page-type/landing.js';
import { findMainContent } from './content/main-content.js';
import { removePosterStats } from './content/noise.js';
import { dropEmptyAndRepeatedLines, trimShortEdges } from './markdown/edges.js';
import { convertToMarkdown, prependTitle, resolveMarkdownUrls, tidyMarkdown } from './markdown/markdown.js';
import { decodeEntities } from './formats/inline.js';
import { missingProductDescription } from './metadata/product-description.js';
import { detectPageType, setPageType, type PageType } from './page-type/page-type.js';
import { NO_DETAILS, readMetadata, type PageDetails, type PageMetadata } from './metadata/metadata.js';
import { assertNestingDepth, normaliseHtml, parseDocument, stripInertMarkup } from './parse/parse.js';
import { renderBlocksAsText } from './formats/text.js';

export type { DocumentBlock, MarkdownDocument, PageDetails };
export { markdownToDocument };

export interface ExtractedContent {
  title: string | null;
  description: string | null;
  language: string | null;
  /** Author, date, site name, canonical URL and image (metadata.ts). */
  details: PageDetails;
  markdown: string;
  text: string;
}

/** Markdown → plain text through the same blocks as format=json. */
export function markdownToText(markdown: string): string {
  return tidyMarkdown(renderBlocksAsText(markdownToDocument(markdown).blocks));
}

/** Last resort when the DOM route fails: the page's text with tags removed, in linear time whatever the input. */
function extractTextByStripping(html: string, metadata: PageMetadata | null): ExtractedContent {
  const text = tidyMarkdown(
    decodeEntities(
      stripInertMarkup(html)
        .replace(/<title\b[^<>]{0,4096}>[^<]*<\/title\s*>/gi, '')
        .replace(/<[^<>]*>/g, ' ')
        .replace(/[ \t]+/g, ' ')
        .replace(/^ /gm, ''),
    ),
  );
  return {
    title: metadata?.title ?? null,
    description: metadata?.description ?? null,
    language: metadata?.language ?? null,
    details: metadata?.details ?? NO_DETAILS,
    markdown: prependTitle(text, metadata?.title ?? null),
    text,
  };
}

/** Less Markdown than this (a line or two) may be a main-content pass that missed the page: see fullerBody. */
const TOO_LITTLE = 200;

/**
 * The fuller extraction for a page whose main content came out (nearly) empty: the whole page minus boilerplate,
 * hidden elements included (pages that render their text hidden and show it by script). Kept when it says more.
 */
function fullerBody(source: string, baseUrl: string, body: string, pageType: PageType): string {
  const doc = parseDocument(source);
  setPageType(doc, pageType);
  const root = extractFullContent(doc, true);
  cleanContent(root, baseUrl);
  const fuller = dropEmptyAndRepeatedLines(convertToMarkdown(root.innerHTML));
  return fuller.length > 2 * body.length ? fuller : body;
}

/**
 * HTML of a page (already decoded to a string) + its final URL → main content as Markdown (titled) and text (not).
 * Never throws: when the DOM route fails, the page's text with its tags stripped comes back.
 */
export function extractHtml(html: string, pageUrl: string): ExtractedContent {
  let metadata: PageMetadata | null = null;
  try {
    const jsonLd: string[] = [];
    const source = normaliseHtml(html, jsonLd);
    const doc = parseDocument(source);
    metadata = readMetadata(doc, pageUrl, jsonLd);
    assertNestingDepth(doc);
    const pageType = detectPageType(doc, jsonLd);
    setPageType(doc, pageType);
    const landing =
      pageType === 'article' && (looksLikeLandingPage(doc) || declaresPageNotPost(jsonLd, metadata.details.author));
    const { root, isLongArticle } = findMainContent(source, doc, landing);
    if (pageType === 'forum') {
      restoreBylines(root);
      removePosterStats(root);
    }
    cleanContent(root, metadata.baseUrl);
    const converted = dropEmptyAndRepeatedLines(convertToMarkdown(root.innerHTML));
    let body = isLongArticle ? trimShortEdges(converted) : converted;
    if (body.length < TOO_LITTLE) body = fullerBody(source, metadata.baseUrl, body, pageType);
    // A product whose description the body lacks (a script renders it, a closed drawer holds it) gets its JSON-LD copy.
    const description = pageType === 'product' ? missingProductDescription(jsonLd, body) : null;
    if (description) body = `${description}\n\n${body}`;
    return {
      title: metadata.title,
      description: metadata.description,
      language: metadata.language,
      details: metadata.details,
      markdown: prependTitle(body, metadata.title),
      // The title is in metadata already; repeating it would put words in `text` that are not the page's body.
      text: markdownToText(body),
    };
  } catch {
    // Includes pages nested too deep to extract from (see parse.ts): their text is still worth having.
    return extractTextByStripping(html, metadata);
  }
}

/** For plain-text and Markdown bodies that need no extraction: title from the first H1, links made absolute. */
export function contentFromMarkdown(markdown: string, pageUrl: string): ExtractedContent {
  const tidy = tidyMarkdown(resolveMarkdownUrls(markdown, pageUrl));
  const firstHeading = markdownToDocument(tidy).blocks.find((block) => block.type === 'heading' && block.level === 1);
  return {
    title: firstHeading?.type === 'heading' ? firstHeading.text : null,
    description: null,
    language: null,
    details: NO_DETAILS,
    markdown: tidy,
    text: markdownToText(tidy),
  };
}
