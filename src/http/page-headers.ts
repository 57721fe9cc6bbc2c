// The headers of every HTML page we serve: the site's pages (src/pages/) and the sign-in link's (routes/auth-pages.ts).
// Kept here, below both, so no page can be served with a weaker set.

/**
 * Scripts, styles and images from this origin only; no inline code (nonces are not needed: there is none). form-action
 * is left unrestricted because the checkout and portal forms end in a redirect to the payment provider's host, which
 * browsers check against form-action; every form on the pages posts to our own paths.
 */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; frame-ancestors 'none'";

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};
