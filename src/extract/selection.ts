// The caller's own choice of the part of a page: `exclude` removes the elements its CSS selectors match before
// extraction, `include` extracts only the elements its selectors match, in document order. Selectors are read by the
// same engine that applies them (linkedom's, css-select), so a selector that passes validation is one that runs.
import { DOMParser } from 'linkedom';
import { prepareCodeBlocks } from './clean/code-language.js';
import { cleanContent } from './clean/clean.js';
import { dropEmptyAndRepeatedLines } from './markdown/edges.js';
import { extractHtml, markdownToText } from './index.js';
import { convertToMarkdown } from './markdown/markdown.js';
import { readMetadata } from './metadata/metadata.js';
import { assertNestingDepth, normaliseHtml, parseDocument } from './parse/parse.js';

export interface Selection {
  include: readonly string[];
  exclude: readonly string[];
}

export interface SelectedContent {
  /** False for a page nested too deep to select in (parse.ts): its content is then extracted as usual. */
  applied: boolean;
  markdown: string;
  text: string;
  /** Elements the include selectors matched (outermost only); null without include. */
  included: number | null;
  /** Elements the exclude selectors removed; null without exclude. */
  excluded: number | null;
}

const probe = new DOMParser().parseFromString('<html><head></head><body></body></html>', 'text/html');
// A pure function's memo (a selector's verdict never changes), kept module-level like the probe; cleared at 1,024.
const checked = new Map<string, string | null>();

/** Why `selector` cannot be used (the engine's own message), or null when it can. */
export function selectorProblem(selector: string): string | null {
  let problem = checked.get(selector);
  if (problem !== undefined) return problem;
  if (!/\S/.test(selector)) problem = 'the selector is empty';
  else {
    try {
      probe.querySelectorAll(selector);
      problem = null;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
  }
  if (checked.size >= 1024) checked.clear();
  checked.set(selector, problem);
  return problem;
}

/** The elements `selector` matches; none if the engine fails on this page (a selector that passed selectorProblem). */
function matchAll(doc: Document, selector: string): Element[] {
  try {
    return Array.from(doc.querySelectorAll(selector));
  } catch {
    return [];
  }
}

/**
 * Removes what `exclude` matches; the number removed (an element inside a removed one is not counted again). The root
 * element (`html`, `*`, `:root`) is emptied, not removed: what is left is still a document, with nothing in it.
 */
function removeExcluded(doc: Document, exclude: readonly string[]): number {
  const root = doc.documentElement;
  let removed = 0;
  for (const selector of exclude) {
    for (const el of matchAll(doc, selector)) {
      if (!root.contains(el)) continue;
      if (el === root) root.replaceChildren();
      else el.remove();
      removed++;
    }
  }
  return removed;
}

/** The elements `include` matches, in document order, without those inside another match. */
function findIncluded(doc: Document, include: readonly string[]): Element[] {
  const matched = new Set<Element>();
  // One selector list: the engine walks the document once and answers in document order.
  for (const el of matchAll(doc, include.join(', '))) matched.add(el);
  const outermost: Element[] = [];
  for (const el of matched) {
    let parent = el.parentElement;
    while (parent && !matched.has(parent)) parent = parent.parentElement;
    if (!parent) outermost.push(el);
  }
  return outermost;
}

/**
 * HTML of a page → the Markdown and text of the part the selection names. With `include` the page's title is not
 * added (only what matched is returned); with `exclude` alone the usual main-content extraction runs on what is left.
 */
export function extractSelection(html: string, pageUrl: string, selection: Selection): SelectedContent {
  const source = normaliseHtml(html);
  const doc = parseDocument(source);
  try {
    // Descendant selectors take quadratic time on pages nested thousands deep (parse.ts).
    assertNestingDepth(doc);
  } catch {
    const content = extractHtml(html, pageUrl);
    return { applied: false, markdown: content.markdown, text: content.text, included: null, excluded: null };
  }
  const excluded = selection.exclude.length > 0 ? removeExcluded(doc, selection.exclude) : null;
  if (selection.include.length === 0) {
    const content = extractHtml(excluded ? `<!DOCTYPE html>${doc.documentElement.outerHTML}` : source, pageUrl);
    return { applied: true, markdown: content.markdown, text: content.text, included: null, excluded };
  }
  const found = findIncluded(doc, selection.include);
  try {
    const container = doc.createElement('div');
    for (const el of found) container.appendChild(el);
    prepareCodeBlocks(container);
    cleanContent(container, readMetadata(doc, pageUrl).baseUrl);
    const markdown = dropEmptyAndRepeatedLines(convertToMarkdown(container.innerHTML));
    return { applied: true, markdown, text: markdownToText(markdown), included: found.length, excluded };
  } catch {
    // Conversion does not fail on a page extraction accepts; if it did, the matched elements' text is worth having.
    const text = found.map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()).join('\n\n');
    return { applied: true, markdown: text, text, included: found.length, excluded };
  }
}
