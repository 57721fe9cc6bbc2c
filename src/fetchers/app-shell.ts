// Is this HTML an app shell, a page whose content only a script will write? Measured from the raw HTML without a DOM,
// so it costs well under a millisecond; the router sends the page to the browser only when this says yes.

/**
 * Visible body text (letters and digits outside script/style/noscript/template) at or above which a page is never a
 * shell. Chosen from both ends: client-rendered shells (create-react-app, Vite, Angular CLI, Next/Nuxt in SPA mode)
 * show 0–60 such characters, a title or "Loading…"; the 181 real pages of the extraction benchmark
 * (shared/bench/extraction, `npx tsx bench/fetchers.ts` prints the figures) show at least 1,257 (5th percentile
 * 2,196). 250 admits a shell that server-renders a menu and a footer and stays 5× below the smallest real page.
 */
export const SHELL_MAX_TEXT_CHARS = 250;

/**
 * Text below which a page with any script is a shell even without a mount point or a noscript message. A short
 * real page ("Thanks, you are subscribed.", a moved-notice) has a sentence: 40 letters is about seven words, which a
 * shell painting a spinner never shows and one real sentence does.
 */
export const SHELL_SCRIPT_ONLY_TEXT_CHARS = 40;

/**
 * Inline script bytes per visible text character above which, on a page under SHELL_MAX_TEXT_CHARS, the scripts are
 * the page. A short real page with an analytics snippet (~600 bytes) is near 4; shells that inline their bootstrap
 * are in the hundreds. On the benchmark pages the median is 3.3, the 95th percentile 33 and the largest 233 (with
 * 1,257 characters of text): the ratio alone would misfire, which is why it only counts under the text bound.
 */
export const SHELL_SCRIPT_TO_TEXT_RATIO = 20;

/** Mount points that frameworks render into, empty in the served HTML. */
const EMPTY_MOUNT =
  /<(div|main|section)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|q-app|main-app|application)["']?[^>]*>\s*<\/\1>|<(app-root|my-app)\b[^>]*>\s*(loading[^<]*)?<\/\3>/i;
const NOSCRIPT_NEEDS_JS =
  /<noscript\b[^>]*>[\s\S]{0,600}?\b(enable|turn on|requires?|need|without)\b[\s\S]{0,40}?javascript[\s\S]*?<\/noscript>|<noscript\b[^>]*>[\s\S]{0,600}?javascript[\s\S]{0,60}?\b(enabled?|required|disabled)\b[\s\S]*?<\/noscript>/i;

export interface ShellSignals {
  textChars: number;
  inlineScriptBytes: number;
  externalScripts: number;
  emptyMount: boolean;
  noscriptNeedsJs: boolean;
}

/** Counts letters and digits of what a browser without JavaScript would show in the body. */
export function visibleTextChars(html: string): number {
  const start = html.search(/<body\b/i);
  const text = (start >= 0 ? html.slice(start) : html)
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, 'x');
  return text.replace(/[^\p{L}\p{N}]+/gu, '').length;
}

export function readShellSignals(html: string): ShellSignals {
  let inlineScriptBytes = 0;
  let externalScripts = 0;
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attributes = match[1] ?? '';
    // JSON islands (ld+json, importmap) are data, not code that renders.
    if (/\btype\s*=\s*["']?application\/(ld\+json|json)|\btype\s*=\s*["']?importmap/i.test(attributes)) continue;
    if (/\bsrc\s*=/i.test(attributes)) externalScripts++;
    else inlineScriptBytes += match[2]?.length ?? 0;
  }
  return {
    textChars: visibleTextChars(html),
    inlineScriptBytes,
    externalScripts,
    emptyMount: EMPTY_MOUNT.test(html),
    noscriptNeedsJs: NOSCRIPT_NEEDS_JS.test(html),
  };
}

/** Why the page is a shell (for fetch_info), or null when the served HTML already holds the content. */
export function appShellReason(signals: ShellSignals): string | null {
  const { textChars, inlineScriptBytes, externalScripts, emptyMount, noscriptNeedsJs } = signals;
  if (textChars >= SHELL_MAX_TEXT_CHARS) return null;
  const hasScript = externalScripts > 0 || inlineScriptBytes > 0;
  if (!hasScript) return null; // nothing could ever render more than what is there
  if (emptyMount) return `empty mount point and ${textChars} characters of text`;
  if (noscriptNeedsJs) return `asks for JavaScript and has ${textChars} characters of text`;
  if (textChars < SHELL_SCRIPT_ONLY_TEXT_CHARS) return `${textChars} characters of text and only scripts`;
  // Inline scripts only: an external one may be a 1 KB analytics tag or a 1 MB bundle, and guessing wrong sends short
  // real pages with analytics to the browser.
  if (inlineScriptBytes > SHELL_SCRIPT_TO_TEXT_RATIO * textChars)
    return `${inlineScriptBytes} bytes of inline script for ${textChars} characters of text`;
  return null;
}

export function detectAppShell(html: string): string | null {
  return appShellReason(readShellSignals(html));
}
