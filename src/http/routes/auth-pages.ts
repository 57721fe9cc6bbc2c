// The two small HTML pages of the sign-in link: a confirmation with a button (the POST spends the token) and a failure.

/** No caching, no referrer (the token is in the URL), no framing (the button must not be clickjacked), no scripts. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Fetchdown</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:15vh auto;padding:0 1rem;color:#222}
button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:.4rem;background:#1d4ed8;color:#fff;cursor:pointer}</style>
</head><body>${body}</body></html>`;
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
