// Is this response a bot challenge (Cloudflare "Just a moment…", a captcha wall) rather than the page? Such pages are
// never returned as content: the router tries the reader provider, else answers 502 blocked_by_site.
import { visibleTextChars } from './app-shell.js';

/**
 * Visible text (letters and digits) above which a 200 page is treated as real content even when it carries a
 * challenge marker: interstitials say a sentence or two (Cloudflare's is ~120 characters, DataDome's and
 * PerimeterX's under 300), while an article that embeds a captcha widget in its comment form has thousands.
 * 1,000 is below the smallest visible text of the 181 real pages of the extraction benchmark (1,257).
 */
export const CHALLENGE_MAX_TEXT_CHARS = 1000;

/** Statuses that WAFs answer challenges with; only these (or cf-mitigated) let the weaker markers count. */
const CHALLENGE_STATUSES = new Set([403, 429, 503]);

/** Markers that only challenge and WAF pages carry: a 200 page with one and little text is a challenge too. */
const STRONG_MARKERS: readonly [string, RegExp][] = [
  [
    'Cloudflare challenge',
    /\/cdn-cgi\/challenge-platform\/|window\._cf_chl_opt|\bcf-browser-verification\b|<title>\s*Just a moment\.\.\.\s*<\/title>/i,
  ],
  ['Cloudflare block page', /<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i],
  ['DataDome captcha', /\b(geo\.)?captcha-delivery\.com\b/i],
  ['PerimeterX captcha', /\bpx-captcha\b|_pxCaptcha/i],
  ['Imperva challenge', /_Incapsula_Resource|\bIncapsula incident ID\b/i],
  ['AWS WAF challenge', /\bawsWafCookieDomainList\b|\bgokuProps\b/i],
  ['Vercel checkpoint', /<title>\s*Vercel Security Checkpoint\s*<\/title>/i],
  ['DDoS-Guard check', /<title>\s*DDoS-Guard\s*<\/title>/i],
  ['Sucuri firewall', /Sucuri WebSite Firewall/i],
];

/** Markers that also appear on ordinary pages (a sign-up form's captcha): they count only on a challenge status. */
const WEAK_MARKERS: readonly [string, RegExp][] = [
  ['captcha', /\b(g-recaptcha|h-captcha|cf-turnstile)\b|\bcaptcha\b/i],
  [
    'browser check',
    /checking (if the site connection is secure|your browser)|verify (that )?you are (a )?human|are you a robot|pardon our interruption|unusual traffic from your (computer )?network/i,
  ],
  ['access denied page', /<title>\s*Access Denied\s*<\/title>[\s\S]*Reference\s*#/i],
];

export interface ChallengeInput {
  status: number;
  headers: Record<string, string>;
  /** The decoded body (HTML usually); only its first 64 KiB are read. */
  html: string;
}

const SCAN_CHARS = 64 * 1024;

/** The kind of challenge (for fetch_info and the error detail), or null for a page that is what it says. */
export function detectChallenge(input: ChallengeInput): string | null {
  if ((input.headers['cf-mitigated'] ?? '').toLowerCase().includes('challenge'))
    return 'Cloudflare challenge (cf-mitigated)';
  const html = input.html.slice(0, SCAN_CHARS);
  const strong = STRONG_MARKERS.find(([, pattern]) => pattern.test(html));
  const challengeStatus = CHALLENGE_STATUSES.has(input.status);
  if (strong && (challengeStatus || visibleTextChars(html) < CHALLENGE_MAX_TEXT_CHARS)) return strong[0];
  if (!challengeStatus) return null;
  const weak = WEAK_MARKERS.find(([, pattern]) => pattern.test(html));
  return weak ? weak[0] : null;
}
