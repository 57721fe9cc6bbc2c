// Inline HTML fixtures for the extraction tests: an article page with every kind of boilerplate around it, and the
// pieces to build other pages from. Written by hand for these tests; no site is copied.
import assert from 'node:assert/strict';

/** A paragraph long enough that Readability scores it as prose. */
export function paragraph(n: number): string {
  return (
    `<p>Paragraph ${n} explains, in several plain sentences, how the town council decided to rebuild the old stone ` +
    `bridge over the river after the spring floods of that year damaged it beyond any hope of repair.</p>`
  );
}

export const SITE_HEADER =
  '<header class="site-header"><a href="/">Daily Courier</a><nav><ul><li><a href="/world">World news</a></li>' +
  '<li><a href="/sport">Sport results</a></li><li><a href="/weather">Weather forecast</a></li></ul></nav></header>';

export const COOKIE_BANNER =
  '<div id="cookie-banner" class="cookie-consent"><p>We use cookies to improve your experience on this website. ' +
  'Please accept all cookies to continue reading.</p><button>Accept all</button></div>';

export const SIDEBAR =
  '<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Mayor opens the summer fair early</a></li>' +
  '<li><a href="/b">Local bakery wins a national prize</a></li></ul><p>Sponsored: buy the best garden furniture today.</p></aside>';

export const SITE_FOOTER =
  '<footer class="site-footer"><p>Copyright 2024 Daily Courier Media Group. All rights reserved.</p>' +
  '<a href="/privacy">Privacy policy</a></footer>';

/** A full page: head metadata, banner, header, the article (given inner HTML), sidebar and footer. */
export function articlePage(articleHtml: string, head = ''): string {
  return (
    '<!DOCTYPE html><html lang="en-GB"><head><meta charset="utf-8"><title>Bridge rebuilt | Daily Courier</title>' +
    '<meta property="og:title" content="The bridge is rebuilt">' +
    '<meta name="description" content="How the council rebuilt the stone bridge.">' +
    head +
    `</head><body>${COOKIE_BANNER}${SITE_HEADER}<main><article><h1>The bridge is rebuilt</h1>${articleHtml}</article>` +
    `${SIDEBAR}</main>${SITE_FOOTER}</body></html>`
  );
}

export const PAGE_URL = 'https://news.example/2024/05/bridge.html';

/** Asserts that `output` holds each of `kept` and none of `dropped`. */
export function assertContains(output: string, kept: string[], dropped: string[]): void {
  for (const text of kept) assert.ok(output.includes(text), `missing: ${text}\n---\n${output}`);
  for (const text of dropped) assert.ok(!output.includes(text), `kept chrome: ${text}\n---\n${output}`);
}
