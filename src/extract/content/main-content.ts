// Finds the main content: Readability first; the page minus boilerplate when Readability finds nothing or misses most
// of the page's text (docs pages split in sections, short pages that are all content).
import { Readability } from '@mozilla/readability';
import {
  collectContentText,
  dropLinkLists,
  extractFullContent,
  holdsDescribedCards,
  isHiddenByClass,
  measureText,
} from './boilerplate.js';
import { markBylines, restorePosts, snapshotPosts } from './bylines.js';
import { prepareCodeBlocks } from '../clean/code-language.js';
import { showCollapsedPanels } from './disclosures.js';
import { unnameDataTables } from './data-tables.js';
import { parseDocument } from '../parse/parse.js';
import { removeLinkParagraphs, removeNamedNoise } from './noise.js';
import { showsNoscriptContent } from '../parse/noscript.js';
import { pageTypeOf, setPageType, type PageType } from '../page-type/page-type.js';
import { showCodeTabPanels } from './tab-panels.js';
import { removeThreadForms, unwrapFieldlessForms } from './post-forms.js';
import { removeTeaserSections } from './teasers.js';
import { headingTexts, missedSections } from './missed-sections.js';

/**
 * An article this long (non-link characters, twice Readability's own threshold) is a real find, trusted unless it
 * covers almost none of the page; a shorter one may be one fragment of a page that is all content.
 */
const LONG_ARTICLE = 1000;
/**
 * Below this much prose (Readability's own threshold for an article) short lines and links may be the content itself
 * (opening hours, one link to a document), so the article is kept whole.
 */
const PRUNABLE_ARTICLE = 500;
/**
 * Least share of the page's non-boilerplate text an article must contain to be kept, for long and short articles. A
 * page that does not call itself an article (a service page of sections, a catalogue) must be covered further.
 */
const MIN_COVERAGE_LONG: Record<PageType, number> = {
  article: 0.3,
  // A thread's posts are siblings, and Readability may keep only the longest one.
  forum: 0.5,
  product: 0.7,
  other: 0.7,
};
const MIN_COVERAGE_SHORT = 0.4;
/** Least share of a short article's own text that must be page content rather than boilerplate. */
const MIN_PURITY_SHORT = 0.6;
/**
 * Least share of a long article's text its link lists may take: past it, the links are what the page is about (a
 * list of entries, an index declared an article), not teasers around an article, and the article keeps them.
 */
const MAX_LINK_LIST_SHARE = 0.5;
/**
 * How many times a short article's text (links included) the page minus boilerplate must hold to replace it, on a
 * page that does not declare an article: a listing whose cards Readability dropped. Less is the same text and chrome.
 */
const FULLER_SHORT = 2;
/**
 * Mean text of a grid's cards (links included) that says they describe their items, not just name them: a course's
 * title and a sentence against a shop tile's name and price.
 */
const DESCRIBED_CARD_TEXT = 60;

function textLength(el: Element): number {
  return (el.textContent ?? '').length;
}

function runReadability(doc: Document): Element | null {
  try {
    // The serializer hands back the element itself, so cleaning happens on the DOM and serialising once. JSON-LD
    // only feeds Readability's metadata, which metadata.ts reads itself; parsing it costs up to 100 ms on big pages.
    const article = new Readability<Element>(doc, {
      disableJSONLD: true,
      serializer: (node) => node as Element,
    }).parse();
    return article?.content ?? null;
  } catch {
    // linkedom lacks parts of the DOM that Readability uses on some malformed pages.
    return null;
  }
}

/** How much of the page's text the article holds, and how much of the article's text is page content. */
function compareText(pageText: string[], article: Element): { coverage: number; purity: number; length: number } {
  const articleText = collectContentText(article);
  const inPage = new Set(pageText);
  const inArticle = new Set(articleText);
  const pageLength = measureText(pageText);
  const length = measureText(articleText);
  return {
    coverage: pageLength === 0 ? 1 : measureText(pageText.filter((chunk) => inArticle.has(chunk))) / pageLength,
    purity: length === 0 ? 0 : measureText(articleText.filter((chunk) => inPage.has(chunk))) / length,
    length,
  };
}

/**
 * Readability's pick is kept when it holds enough of the page's text. Compared as text, not as lengths: Readability
 * renames tags (a <footer> becomes a <div>), so its output can hold boilerplate that the page's measure left out; on
 * a short page that boilerplate is a large part of the result, so a short pick must also be mostly page content.
 */
function judgeArticle(
  pageText: string[],
  article: Element,
  pageType: PageType,
): { verdict: 'long' | 'short' | 'rejected'; length: number } {
  const { coverage, purity, length } = compareText(pageText, article);
  const kept =
    length >= LONG_ARTICLE
      ? coverage >= MIN_COVERAGE_LONG[pageType]
      : coverage >= MIN_COVERAGE_SHORT && purity >= MIN_PURITY_SHORT;
  if (!kept) return { verdict: 'rejected', length };
  return { verdict: length >= PRUNABLE_ARTICLE ? 'long' : 'short', length };
}

/**
 * A pick of 500-1,000 characters on a page that declares nothing may be a listing's intro, its cards cleaned away as
 * link-dense; when the page minus boilerplate says twice as much and holds a grid of cards that describe their items,
 * that is the content. Cards that only name their items (a shop's tiles beside a category's intro) are not.
 */
function listingBehindIntro(html: string, doc: Document, article: Element, hasCode: boolean): Element | null {
  const full = freshFullContent(html, doc, hasCode);
  if (textLength(full) < FULLER_SHORT * textLength(article)) return null;
  return holdsDescribedCards(full, DESCRIBED_CARD_TEXT) ? full : null;
}

/** The page minus boilerplate from a new parse of `html` (Readability has changed `doc`), prepared as `doc` was. */
function freshFullContent(html: string, doc: Document, hasCode: boolean): Element {
  const fresh = parseDocument(html);
  setPageType(fresh, pageTypeOf(doc));
  if (hasCode) prepareCodeBlocks(fresh);
  showCollapsedPanels(fresh.body);
  // A thread's page minus boilerplate loses the named noise (pagination, tag lists) Readability's route loses too. On
  // other page types the same cost products and service pages 0.01-0.02 F1 on WCXB: there those names catch content.
  if (pageTypeOf(doc) === 'forum') {
    markBylines(fresh.body);
    removeThreadForms(fresh.body);
    removeNamedNoise(fresh.body);
  }
  return extractFullContent(fresh);
}

export interface MainContent {
  root: Element;
  /**
   * Readability's article with prose enough to tell it from the noise around it, which is gone (its short edge lines
   * go after conversion). Shorter articles and the whole-page fallback are kept as they are: there, short lines and
   * links may be the content (opening hours, a list of documents).
   */
  isLongArticle: boolean;
}

/**
 * `doc` must be the parse of `html` (normalised); Readability changes it, so the fallback parses `html` again.
 * `landing`: a declared article built like a landing page (landing.ts), whose pick must cover as much as on a page
 * that declares nothing.
 */
export function findMainContent(html: string, doc: Document, landing = false): MainContent {
  // Most pages have no <pre>: testing the string is cheaper than walking the DOM for one.
  const hasCode = /<pre[\s>]/i.test(html);
  if (pageTypeOf(doc) === 'forum') markBylines(doc.body);
  if (hasCode) {
    prepareCodeBlocks(doc);
    showCodeTabPanels(doc.body);
  }
  removeTeaserSections(doc.body);
  showCollapsedPanels(doc.body);
  const pageText = collectContentText(doc.body);
  // A body of bare text has no candidate for Readability, which then retries four times, re-parsing the page each time.
  // A noscript copy of the page is its content already (noscript.ts).
  const runsReadability = doc.body.firstElementChild !== null && !showsNoscriptContent(doc);
  if (runsReadability) {
    // Before the named noise goes: it takes the fields that tell a reply box from a post wrapped in a form.
    if (pageTypeOf(doc) === 'forum') removeThreadForms(doc.body);
    removeNamedNoise(doc.body);
    unnameDataTables(doc.body);
    if (pageTypeOf(doc) === 'forum') {
      unwrapFieldlessForms(doc.body);
      for (const el of [...doc.body.querySelectorAll('[class]')]) if (isHiddenByClass(el)) el.remove();
    }
  }
  const posts = runsReadability && pageTypeOf(doc) === 'forum' ? snapshotPosts(doc.body) : null;
  // A page that declares no story or product may be a landing page of many headed sections (missed-sections.ts).
  const headings = runsReadability && (landing || pageTypeOf(doc) === 'other') ? headingTexts(doc.body) : [];
  const article = runsReadability ? runReadability(doc) : null;
  if (article && posts) restorePosts(article, posts);
  const { verdict, length } = article
    ? judgeArticle(pageText, article, landing ? 'other' : pageTypeOf(doc))
    : { verdict: 'rejected', length: 0 };
  if (article && verdict === 'long') {
    const sections = missedSections(headings, article, () => freshFullContent(html, doc, hasCode));
    if (sections) return { root: sections, isLongArticle: false };
    // Teaser lists and link paragraphs are an article's noise. On a page that declares no article (a service page, a
    // catalogue, documentation) the links Readability kept are its content: documents, items, the pages of a manual.
    if (pageTypeOf(doc) === 'other') {
      const listing = length < LONG_ARTICLE ? listingBehindIntro(html, doc, article, hasCode) : null;
      return listing ? { root: listing, isLongArticle: false } : { root: article, isLongArticle: true };
    }
    // A product's specifications are short lines ("Weight: 1 lb"), which the short-edge trimming took for labels.
    if (pageTypeOf(doc) === 'product') return { root: article, isLongArticle: false };
    const whole = article.cloneNode(true) as Element;
    dropLinkLists(article);
    removeLinkParagraphs(article);
    if (textLength(article) < (1 - MAX_LINK_LIST_SHARE) * textLength(whole))
      return { root: whole, isLongArticle: false };
    return { root: article, isLongArticle: true };
  }
  // A short pick on a page that is not an article may be the intro above a listing's cards, which Readability cleans
  // away as link-dense: the whole page is weighed against it first.
  if (article && verdict === 'short' && pageTypeOf(doc) === 'article') return { root: article, isLongArticle: false };
  const full = runsReadability ? freshFullContent(html, doc, hasCode) : extractFullContent(doc);
  if (article && verdict === 'short' && textLength(full) < FULLER_SHORT * textLength(article)) {
    return { root: article, isLongArticle: false };
  }
  // A page of nothing but links (a listing) has no text left after pruning: Readability's pick is then the better one.
  if (article && measureText(collectContentText(full)) === 0) return { root: article, isLongArticle: false };
  return { root: full, isLongArticle: false };
}
