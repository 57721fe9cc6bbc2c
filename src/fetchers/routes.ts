// The router's decisions as data: what it reads from the one GET it makes, in which order, which fetchers each
// finding leads to, which outcomes move on to the next fetcher, and what is answered when none succeeds.
// router.ts interprets the chains and fallbacks of this table; README.md beside it draws the same flow.
import type { FetcherName } from './types.js';

export type Finding = 'file' | 'challenge' | 'refused' | 'error' | 'app_shell' | 'document';

export interface Route {
  finding: Finding;
  /**
   * What the router reads to reach this finding. This column documents classify() in router.ts, which tests the
   * findings in the order of this table (first match wins); it does not drive it.
   */
  reads: string;
  /**
   * Fetchers tried in order, first success wins. html and pdf (the document extractor) convert the GET the router
   * already made.
   */
  chain: readonly FetcherName[];
  /** The answer when every fetcher of the chain failed or could not run. */
  otherwise: Otherwise;
}

export type Otherwise =
  | 'last_failure' // the failure of the last fetcher tried
  | 'site_status' // 502 upstream_status with the site's status: error pages are never content
  | 'blocked_by_site' // 502 blocked_by_site: challenge pages are never content
  | 'served_html'; // the served HTML's own extraction if it has any text, else why no renderer could run

export const ROUTES: readonly Route[] = [
  {
    finding: 'file',
    reads:
      'the bytes of a PDF, DOCX, XLSX, ODS, PPTX, EPUB or image (documents/sniff.ts: magic bytes first, then ' +
      'Content-Type; %PDF- may sit in the first KiB of a body declared PDF or generic)',
    chain: ['pdf'],
    otherwise: 'last_failure',
  },
  {
    finding: 'challenge',
    reads: 'cf-mitigated: challenge, or challenge markers (challenge.ts): "Just a moment…", captcha walls, WAF pages',
    chain: ['reader'],
    otherwise: 'blocked_by_site',
  },
  {
    finding: 'refused',
    reads: 'status 401, 403 or 429 without challenge markers',
    chain: ['reader'],
    otherwise: 'site_status',
  },
  { finding: 'error', reads: 'any other status ≥ 400', chain: [], otherwise: 'site_status' },
  {
    finding: 'app_shell',
    reads:
      'HTML with almost no visible text plus an empty mount point, a "enable JavaScript" ' +
      'noscript or only scripts (app-shell.ts)',
    chain: ['browser', 'reader'],
    otherwise: 'served_html',
  },
  {
    finding: 'document',
    reads: 'everything else: HTML with content, Markdown, text, CSV, RSS and Atom feeds, JSON, XML',
    chain: ['html'],
    otherwise: 'last_failure',
  },
];

/** Statuses with which a site refuses us rather than fails: the reader provider may still get the page. */
export const REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

/**
 * Outcomes after which the next fetcher of a chain is tried. Any other failure ends the request at once: blocked_url
 * above all (a URL the guard refused must not be handed to someone else to fetch), and no_text_layer,
 * unsupported_content and robots_disallowed, which another fetcher would only repeat.
 */
export const MOVES_ON: ReadonlySet<string> = new Set([
  'fetcher_unavailable', // not configured, not installed, queue full
  'blocked_by_site', // the browser met a challenge too
  'empty_content', // rendered, still nothing
  'upstream_status',
  'upstream_timeout',
  'upstream_unreachable',
  'reader_failed',
]);
