// The documents of the crawl fixture site (crawl-site.ts serves them), made on request from a page's number so a site
// of 10,000 pages costs nothing to start: a tree of articles, duplicates, traps, robots.txt, sitemaps and llms.txt.

/** Children per article: /docs/i links to /docs/3i-1, /docs/3i and /docs/3i+1, those that exist. */
const BRANCHING = 3;

export const docChildren = (i: number, pages: number) =>
  Array.from({ length: BRANCHING }, (_, k) => BRANCHING * (i - 1) + 2 + k).filter((child) => child <= pages);

const docParent = (i: number) => Math.floor((i - 2) / BRANCHING) + 1;

/** Links followed from / to reach /docs/i: / is at depth 0, /docs/1 at 1, its children at 2… */
export function docDepth(i: number): number {
  let depth = 1;
  for (let page = i; page > 1; page = docParent(page)) depth++;
  return depth;
}

/** The word only /docs/i (and its duplicate /dup/i) contains. */
export const docMarker = (i: number) => `PAGE-${i}-MARKER`;

const TOPICS = ['caching', 'queues', 'sitemaps', 'robots files', 'rate limits', 'webhooks', 'retries', 'workers'];
const ANGLES = ['in practice', 'explained', 'for beginners', 'under load', 'step by step'];

export const docTitle = (i: number) => {
  const topic = TOPICS[i % TOPICS.length]!;
  return `Doc ${i}: ${topic[0]!.toUpperCase()}${topic.slice(1)} ${ANGLES[i % ANGLES.length]}`;
};

const page = (title: string, body: string, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><header><nav><a href="/">Home</a> <a href="/docs/1">Docs</a></nav></header>
<main><article><h1>${title}</h1>
${body}
</article></main><footer><p>Fixture Docs, a site made up for the crawl tests.</p></footer></body></html>`;

const list = (links: [href: string, text: string][]) =>
  `<ul>${links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('')}</ul>`;

const canonical = (href: string) => `<link rel="canonical" href="${href}">`;

/** A few paragraphs of prose about the page's topic, enough for an extractor to take it for an article. */
function article(i: number): string {
  const topic = TOPICS[i % TOPICS.length]!;
  return [
    `This page, number ${i} of the fixture documentation, is about ${topic}. Its marker is ${docMarker(i)}, a word ` +
      `no other page of the site contains, so a test can tell which page a result came from.`,
    `Most readers come to ${topic} with a concrete problem: a service that slows down, a job that runs twice, a ` +
      `bill that grew. The sections of the documentation start from such problems and work back to the causes.`,
    `Page ${i} walks through one of them. It sets the scene, shows what went wrong and why, and ends with what to ` +
      `measure before and after a change, because a fix that nobody measured is only a guess.`,
    `The pages below this one go deeper into ${topic}, and the page above it gives the wider picture. Every page ` +
      `links to its neighbours, so the whole tree can be read from the home page by following links alone.`,
  ]
    .map((text) => `<p>${text}</p>`)
    .join('\n');
}

/** The article with a link up the tree. */
function docBody(i: number): string {
  const up: [string, string] = i === 1 ? ['/', 'Fixture Docs'] : [`/docs/${docParent(i)}`, docTitle(docParent(i))];
  return `<p class="breadcrumb">Up: <a href="${up[0]}">${up[1]}</a></p>\n${article(i)}`;
}

/** /docs/i: the article, links down to its children, and one link again in three spellings a crawler must undo. */
export function docPage(i: number, pages: number): string {
  const children = docChildren(i, pages);
  const again = `/docs/${children[0] ?? (i === 1 ? 1 : docParent(i))}`;
  return page(
    docTitle(i),
    `${docBody(i)}
<h2>Read next</h2>
${list(children.map((child) => [`/docs/${child}`, docTitle(child)]))}
<p>Also at <a href="${again}#details">its details</a>, at <a href="${again}?utm_source=x">a tracked link</a> and at ` +
      `<a href="${again}/">a link with a slash</a>.</p>`,
  );
}

/**
 * /dup/i: the article of /docs/i at an old address, its canonical link pointing there. It links up but not down, so
 * that reaching it from / early does not shorten the tree's depths.
 */
export const dupPage = (origin: string, i: number) => page(docTitle(i), docBody(i), canonical(`${origin}/docs/${i}`));

export function homePage(origin: string): string {
  return page(
    'Fixture Docs',
    `<p>Fixture Docs is a made-up documentation site for the crawl tests: a tree of articles to map and crawl, with
the duplicates, traps and forbidden corners a real site has. Start at the first article and follow the links.</p>
${list([
  ['/docs/1', 'Start reading'],
  ['/dup/1', 'The first article at an old address'],
  ['/dup/2', 'The second article at an old address'],
  ['/admin/settings', 'Settings'],
  ['/admin/users', 'Users'],
  ['/calendar?month=1', 'Calendar'],
  ['/loop/a', 'Archive'],
  ['/search?q=1', 'Search'],
  ['/private-link', 'Internal tools'],
  ['/redirect-private', 'Status page'],
  ['/external', 'Elsewhere'],
])}`,
    canonical(`${origin}/`),
  );
}

/** /calendar?month=n: every month links to the next one, forever. */
export function calendarPage(month: number): string {
  const links: [string, string][] = [[`/calendar?month=${month + 1}`, 'Next month']];
  if (month > 1) links.push([`/calendar?month=${month - 1}`, 'Previous month']);
  return page(
    `Calendar: month ${month}`,
    `<p>Nothing is planned in month ${month}. A crawler that follows the calendar never runs out of months.</p>
${list(links)}`,
  );
}

/** /loop/a/b/a…: each page links one segment deeper, a relative link gone wrong. */
export const loopPage = (path: string) =>
  page(
    `Archive ${path}`,
    `<p>An archive page whose links only ever add a segment to the path.</p>
${list([[`${path}/${path.endsWith('/a') ? 'b' : 'a'}`, 'Older entries']])}`,
  );

/** /search?q=n&page=p: the same path with ever new query strings. */
export const searchPage = (q: number, resultPage: number) =>
  page(
    `Search results for ${q}, page ${resultPage}`,
    `<p>No documents match the query ${q}.</p>
${list([
  [`/search?q=${q + 1}`, 'Try another query'],
  [`/search?q=${q}&amp;page=${resultPage + 1}`, 'Next page of results'],
])}`,
  );

export const adminPage = (name: string) =>
  page(
    `Admin: ${name}`,
    `<p>The ${name} screen of the site's administration, ADMIN-MARKER: robots.txt forbids it.</p>`,
  );

/** Links into a private network, by a name the tests' DNS sends to 127.0.0.2 and by the address itself. */
export const privateLinkPage = (privateOrigin: string, privateAddressOrigin: string) =>
  page(
    'Internal tools',
    `<p>Links to the internal tools that only the office network should reach.</p>
${list([
  [`${privateOrigin}/secret`, 'The internal wiki'],
  [`${privateAddressOrigin}/secret`, 'The internal dashboard'],
])}`,
  );

export const secretPage = () => page('Secret', '<p>SECRET-MARKER: an internal page no crawl may fetch.</p>');

export const externalPage = (origins: { other: string; blog: string; www: string }) =>
  page(
    'Elsewhere',
    `<p>Pages on other hosts: another site, and the blog and www subdomains of this one.</p>
${list([
  [`${origins.other}/`, 'Another site'],
  [`${origins.other}/page`, 'A page of another site'],
  [`${origins.blog}/posts/1`, 'The blog'],
  [`${origins.www}/welcome`, 'The www site'],
])}`,
  );

/** A small page of one of the other hosts (the blog, www, other.test), linking to its neighbours. */
export const plainPage = (title: string, links: [string, string][]) =>
  page(title, `<p>${title} is a short page on a host beside the fixture documentation.</p>\n${list(links)}`);

export const robotsTxt = (origin: string, crawlDelaySeconds: number) =>
  `User-agent: *\nDisallow: /admin/\nCrawl-delay: ${crawlDelaySeconds}\n\nSitemap: ${origin}/sitemap_index.xml\n`;

/** robots.txt of a host with no rules and no Sitemap line: its sitemap is found at /sitemap.xml or not at all. */
export const openRobotsTxt = 'User-agent: *\nDisallow:\n';

export const sitemapIndex = (origin: string) => `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${origin}/sitemap-1.xml</loc><lastmod>2025-01-01</lastmod></sitemap>
<sitemap><loc>${origin}/sitemap-2.xml.gz</loc><lastmod>2025-01-01</lastmod></sitemap>
</sitemapindex>
`;

export const urlSet = (urls: Iterable<string>) => {
  const entries: string[] = [];
  for (const url of urls) entries.push(`<url><loc>${url}</loc><lastmod>2025-01-01</lastmod></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.join('\n')}
</urlset>
`;
};

function* docUrls(origin: string, from: number, to: number) {
  for (let i = from; i <= to; i++) yield `${origin}/docs/${i}`;
}

/** Sitemap 1 or 2 of the index: the first half of /docs/ or the rest (which the site serves gzipped). */
export function docSitemap(origin: string, pages: number, part: 1 | 2): string {
  const half = Math.ceil(pages / 2);
  return part === 1 ? urlSet(docUrls(origin, 1, half)) : urlSet(docUrls(origin, half + 1, pages));
}

export const llmsTxt = (origin: string, blogOrigin: string) => `# Fixture Docs

> A made-up documentation site for the crawl tests.

## Docs

- [${docTitle(1)}](${origin}/docs/1): where the tree of articles begins
- [${docTitle(2)}](${origin}/docs/2)
- [${docTitle(3)}](/docs/3): a link relative to the site

## Elsewhere

- [The blog](${blogOrigin}/posts/1)
`;
