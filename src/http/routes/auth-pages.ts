// The two small HTML pages of the sign-in link: a confirmation with a button (the POST spends the token) and a failure.
import { PAGE_HEADERS } from '../page-headers.js';

/**
 * Every page's headers (no framing, so the button cannot be clickjacked), with no caching and no referrer: the token is
 * in the URL.
 */
export const LINK_PAGE_HEADERS = { ...PAGE_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Fetchdown</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/static/site.css">
</head><body><main><section class="panel narrow">${body}</section></main></body></html>`;
}

export function confirmPage(token: string): string {
  return page(
    'Sign in',
    `<h1>Sign in to Fetchdown</h1>
<p>Press the button to finish signing in on this device.</p>
<form method="post" action="/auth/verify"><input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Sign in</button></form>`,
  );
}

export function failedPage(reason: string): string {
  return page(
    'Sign-in link not valid',
    `<h1>This sign-in link cannot be used</h1><p>${escapeHtml(reason)}.</p><p><a href="/">Back to Fetchdown</a></p>`,
  );
}
