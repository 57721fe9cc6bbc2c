// The links of a site's llms.txt (llmstxt.org): a Markdown file whose `[title](url)` links are the pages the site
// itself points language models to.
import { normalizeCrawlUrl } from './urls.js';

/**
 * `[title](url)`, `[title](url "tooltip")` and `[title](<url>)`; not `![alt](src)`, an image. A title holds no `]`
 * and a bare URL no space or `)`, so one line's scan stays linear.
 */
const MARKDOWN_LINK = /(!?)\[([^\]\n]*)\]\(\s*(?:<([^>\n]*)>|([^\s)]+))(?:\s+"[^"\n]*")?\s*\)/g;

/** Each linked http(s) URL once (its first title), resolved against `base` and normalised by normalizeCrawlUrl. */
export function linksFromLlmsTxt(text: string, base: string): { url: string; title?: string }[] {
  const links = new Map<string, string | undefined>();
  for (const [, image, title, bracketed, bare] of text.matchAll(MARKDOWN_LINK)) {
    const href = bracketed ?? bare;
    if (image || !href) continue;
    const url = normalizeCrawlUrl(href, base);
    if (url === null || links.has(url)) continue;
    links.set(url, title?.trim() || undefined);
  }
  return [...links].map(([url, title]) => (title === undefined ? { url } : { url, title }));
}
