// Feeds written at test time from content given as data, in the three formats: RSS 2.0 (descriptions as escaped HTML,
// as most sites send them), RSS 1.0 (RDF, items beside the channel, dc: dates and authors) and Atom (html and xhtml
// content). The same items in each, so one expectation checks all three.

export interface FeedItem {
  title: string;
  link: string;
  /** ISO 8601, what the reader must give back whatever the format wrote. */
  date: string;
  author?: string;
  /** The summary as HTML. */
  html: string;
}

export interface FeedContent {
  title: string;
  /** Plain text. */
  description: string;
  items: FeedItem[];
}

export const GARDEN_FEED: FeedContent = {
  title: 'Garden & Balcony Notes',
  description: 'Weekly notes on growing food in small spaces.',
  items: [
    {
      title: 'Tomatoes – the basics',
      link: 'https://garden.example/tomatoes?from=feed&page=1',
      date: '2024-06-04T08:30:00.000Z',
      author: 'Ada Gardener',
      html: '<p>Six hours of <b>sun</b> &amp; deep pots.</p>',
    },
    {
      title: 'Watering in July',
      link: 'https://garden.example/watering',
      date: '2024-07-02T18:00:00.000Z',
      html: '<p>Water in the evening, <a href="https://garden.example/cans">with a can</a>.</p>',
    },
  ],
};

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function rss2(feed: FeedContent = GARDEN_FEED): string {
  const items = feed.items.map(
    (item) => `<item>
      <title>${escape(item.title)}</title>
      <link>${escape(item.link)}</link>
      <pubDate>${new Date(item.date).toUTCString()}</pubDate>
      ${item.author ? `<dc:creator>${escape(item.author)}</dc:creator>` : ''}
      <description>${escape(item.html)}</description>
    </item>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>${escape(feed.title)}</title>
    <atom:link href="https://garden.example/feed.xml" rel="self" type="application/rss+xml"/>
    <link>https://garden.example/</link>
    <description>${escape(feed.description)}</description>
    ${items.join('\n')}
  </channel>
</rss>`;
}

export function rss1(feed: FeedContent = GARDEN_FEED): string {
  const items = feed.items.map(
    (item) => `<item rdf:about="${escape(item.link)}">
    <title>${escape(item.title)}</title>
    <link>${escape(item.link)}</link>
    <dc:date>${item.date}</dc:date>
    ${item.author ? `<dc:creator>${escape(item.author)}</dc:creator>` : ''}
    <description>${escape(item.html)}</description>
  </item>`,
  );
  return `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
  xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://garden.example/">
    <title>${escape(feed.title)}</title>
    <link>https://garden.example/</link>
    <description>${escape(feed.description)}</description>
  </channel>
  ${items.join('\n')}
</rdf:RDF>`;
}

/** Atom: the first entry's content as xhtml, the others' as escaped html; dates with an offset, as Atom allows. */
export function atom(feed: FeedContent = GARDEN_FEED): string {
  const entries = feed.items.map((item, i) => {
    const published = new Date(item.date).toISOString().replace('.000Z', '+00:00');
    const content =
      i === 0
        ? `<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">${item.html}</div></content>`
        : `<content type="html">${escape(item.html)}</content>`;
    return `<entry>
    <title>${escape(item.title)}</title>
    <link rel="alternate" href="${escape(item.link)}"/>
    <id>${escape(item.link)}</id>
    <published>${published}</published>
    ${item.author ? `<author><name>${escape(item.author)}</name></author>` : ''}
    ${content}
  </entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>${escape(feed.title)}</title>
  <subtitle>${escape(feed.description)}</subtitle>
  <link rel="self" href="https://garden.example/atom.xml"/>
  ${entries.join('\n')}
</feed>`;
}

/** What the garden feed reads as in every format. */
export const GARDEN_FEED_MARKDOWN = `# Garden & Balcony Notes

Weekly notes on growing food in small spaces.

## [Tomatoes – the basics](https://garden.example/tomatoes?from=feed&page=1)

2024-06-04T08:30:00.000Z, by Ada Gardener

Six hours of **sun** & deep pots.

## [Watering in July](https://garden.example/watering)

2024-07-02T18:00:00.000Z

Water in the evening, [with a can](https://garden.example/cans).`;
