// A small website on 127.0.0.1 that every HTTP test fetches from: articles, redirects, errors, charsets, slow pages.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';

export const ARTICLE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gardening Notes | Example Site</title>
<meta name="description" content="How to grow tomatoes on a balcony."></head>
<body>
<header><nav><a href="/">Home</a> <a href="/about">About</a> <a href="/blog">Blog</a> SITE-NAV-MARKER</nav></header>
<div class="cookie-banner" id="cookie-consent">We use cookies. COOKIE-MARKER <button>Accept</button></div>
<main><article>
<h1>Growing Tomatoes on a Balcony</h1>
<p>Tomatoes need at least six hours of direct sun every day, which makes a south-facing balcony the best place for them. Choose a deep pot with drainage holes and a good potting mix.</p>
<p>Water deeply but not too often: the soil should dry a little between waterings so the roots grow down. See the <a href="/guides/watering">watering guide</a> for details.</p>
<h2>What you need</h2>
<ul><li>A pot of at least 20 litres<ul><li>terracotta or plastic</li><li>with drainage holes</li></ul></li><li>Potting mix</li><li>A sturdy stake</li></ul>
<h2>Varieties compared</h2>
<table><thead><tr><th>Variety</th><th>Days to harvest</th></tr></thead>
<tbody><tr><td>Cherry</td><td>60</td></tr><tr><td>Roma</td><td>75</td></tr></tbody></table>
<h2>A watering schedule script</h2>
<pre><code class="language-python">def water(days):
    return [d for d in days if d % 2 == 0]
</code></pre>
<blockquote><p>The best fertiliser is the gardener's shadow.</p></blockquote>
<p><img src="/img/tomato.jpg" alt="Ripe tomatoes"> <img src="data:image/png;base64,iVBORw0KGgo=" alt="pixel"></p>
<p>Harvest when the fruit is fully coloured and slightly soft to the touch; tomatoes keep ripening indoors if you pick them a little early before a cold night.</p>
</article></main>
<aside class="sidebar">SIDEBAR-MARKER <a href="/popular">Popular posts</a></aside>
<footer>FOOTER-MARKER &copy; 2026 Example Site</footer>
</body></html>`;

/** An article that describes itself in JSON-LD (an @graph with references), OpenGraph and a canonical link. */
export const METADATA_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pruning Tomatoes | Example Garden</title>
<link rel="canonical" href="/guides/pruning">
<meta property="og:site_name" content="Example Garden">
<meta property="og:image" content="/img/pruning.jpg">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "Person", "@id": "#ada", "name": "Ada Gardener"},
  {"@type": "BlogPosting", "headline": "Pruning Tomatoes", "author": [{"@id": "#ada"}, {"@type": "Person", "name": "Ben Sower"}],
   "datePublished": "2026-05-04T08:30:00+02:00", "publisher": {"@type": "Organization", "name": "Example Garden Press"}}
]}</script></head>
<body><article><h1>Pruning Tomatoes</h1>
<p class="byline">By Ada Gardener and Ben Sower</p>
<p>Pinch out the side shoots that grow between the main stem and the leaves, once a week, so the plant puts its strength into fruit.</p>
<p>Leave the lowest leaves until the first truss has set, then take them off to keep soil splashes away from the stem.</p>
</article></body></html>`;

function section(i: number): string {
  const sentences = Array.from(
    { length: 6 },
    (_, j) =>
      `Section ${i} sentence ${j} explains one more detail about the topic of part ${i}, so that the page grows long.`,
  );
  return `<h2>Part ${i}</h2>\n<p>${sentences.slice(0, 3).join(' ')}</p>\n<p>${sentences.slice(3).join(' ')}</p>`;
}

export const LONG_HTML = `<!doctype html><html lang="en"><head><title>A Long Guide</title></head><body><main><article>
<h1>A Long Guide</h1>
${Array.from({ length: 40 }, (_, i) => section(i + 1)).join('\n')}
</article></main></body></html>`;

const MARKDOWN_DOC =
  '# Served as Markdown\n\nThis page was answered in **Markdown** by the publisher.\n\n- one\n- two\n';

/**
 * Publisher Markdown (used as is, links made absolute) for the `links` and `images` options: a repeated URL, a title,
 * brackets in link text, parentheses in a URL, links inside code, an autolink, a linked image and an image-only item.
 */
export const LINKS_MD = `# Link Styles

Start with the [soil guide](/guides/soil "Soil basics"), then the [watering guide](/guides/water).

The [soil guide](/guides/soil) again, [the plant](https://example.org/wiki/Tomato_(plant)) and [a [bracketed] name](/names).

Code keeps \`[not a link](https://example.org/code)\` as written, and <https://example.org/auto> stays.

\`\`\`md
[inside](/fence)
\`\`\`

[![Thumbnail](https://img.example/thumb.jpg)](/gallery)

![A plant](https://img.example/plant.jpg)

- [One](/one)
- ![icon](https://img.example/icon.png)
- Plain item
`;

/** A long Markdown page whose every section links to itself, to a shared index and to the next section. */
export const LINKS_LONG_MD = `# Linked Guide

${Array.from(
  { length: 30 },
  (_, i) => `## Section ${i + 1}

Section ${i + 1} opens [its own page](/section/${i + 1}) and the [shared index](/index), then says a little more about the topic so that each section is long enough to need a part of its own.

Read on in [section ${i + 2}](/section/${i + 2}) when this one is done.`,
).join('\n\n')}
`;

function charsetPage(title: string, body: string, metaCharset?: string): string {
  const meta = metaCharset ? `<meta charset="${metaCharset}">` : '';
  return (
    `<!doctype ` +
    `html><html><head>${meta}<title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p><p>${body}</p><p>${body}</p></article></body></html>`
  );
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

function html(
  res: ServerResponse,
  body: string | Buffer,
  status = 200,
  contentType = 'text/html; charset=utf-8',
): void {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': contentType, 'content-length': buffer.length });
  res.end(buffer);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Pages an attacker would send to hold a process (issue 14): each costs seconds to tens of seconds of CPU to extract.
 * Made on first request and kept, as they take a moment to build.
 */
const LETTERS_HTML =
  `<!doctype html><html><head><title>Letters</title></head><body><article><p>` +
  'abcdefghij'.repeat(600_000) +
  `</p></article></body></html>`;

const HOSTILE_PAGES: Record<string, () => string> = {
  // About 1.1 MB of <div>s nested 100,000 deep.
  nested: () =>
    `<!doctype html><html><head><title>Nested</title></head><body>${'<div>'.repeat(100_000)}Deep text.${'</div>'.repeat(100_000)}</body></html>`,
  // 50,000 links in one list.
  links: () =>
    `<!doctype html><html><head><title>Links</title></head><body><main><h1>Links</h1><ul>` +
    Array.from({ length: 50_000 }, (_, i) => `<li><a href="/page/${i}">Link number ${i}</a></li>`).join('') +
    `</ul></main></body></html>`,
  // About 2.4 million nodes: 800,000 bold words, each an element and its text, between two sentences.
  nodes: () =>
    `<!doctype html><html><head><title>Nodes</title></head><body><article><p>First sentence.</p><p>` +
    '<b>w</b> '.repeat(800_000) +
    `</p><p>Last sentence.</p></article></body></html>`,
  // Giant attribute lists: 200 elements with 1,000 attributes each, then one with 200,000.
  attributes: () => {
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => ` data-a${i}="v${i}"`).join('');
    const row = `<p${attributes(1000)}>A paragraph with a thousand attributes.</p>`;
    return (
      `<!doctype html><html><head><title>Attributes</title></head><body><article>${row.repeat(200)}` +
      `<div${attributes(200_000)}>One element with two hundred thousand attributes.</div></article></body></html>`
    );
  },
  // 10 MB on one line: words in one paragraph, no line break anywhere.
  'single-line': () =>
    `<!doctype html><html><head><title>One line</title></head><body><article><p>` +
    'words on a single line '.repeat(Math.floor(10_000_000 / 23)) +
    `</p></article></body></html>`,
  // About 6 million letters without a space (it overflowed the token counter's stack: a 500).
  letters: () => LETTERS_HTML,
  // The same letters as a brotli bomb: 23 bytes on the wire (served with Content-Encoding: br).
  'letters-br': () => LETTERS_HTML,
};
/** Hostile kinds served brotli-compressed. */
const BROTLI_KINDS = new Set(['letters-br']);
const hostileBodies = new Map<string, Buffer>();

export const HOSTILE_KINDS = Object.keys(HOSTILE_PAGES);

/** A page well over 64 KB: 40 KB of inline script in its head, then a long article (for estimates from a sample). */
export const SCRIPTED_LONG_HTML = `<!doctype html><html lang="en"><head><title>A Scripted Guide</title>
<script>${'window.config = {"a": [1, 2, 3], "b": "some configuration value"};\n'.repeat(600)}</script></head>
<body><main><article><h1>A Scripted Guide</h1>
${Array.from({ length: 160 }, (_, i) => section(i + 1)).join('\n')}
</article></main></body></html>`;

/** Letters that gzip hardly shrinks (a fixed xorshift sequence), `length` of them. */
function noise(length: number): string {
  let x = 2463534242;
  const letter = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return String.fromCharCode(97 + ((x >>> 0) % 26));
  };
  return Array.from({ length }, letter).join('');
}

/** An article, then 320 KB of script that gzip hardly shrinks: over 64 KB even compressed. */
export const SCRIPT_TAIL_HTML = `<!doctype html><html lang="en"><head><title>A Guide With A Heavy Tail</title></head>
<body><main><article><h1>A Guide With A Heavy Tail</h1>
${Array.from({ length: 40 }, (_, i) => section(i + 1)).join('\n')}
</article></main><script>window.state = "${noise(320_000)}";</script></body></html>`;

/** As most web servers do: the whole body gzipped to a caller that accepts gzip (any range ignored), else ranged. */
function gzipped(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  if (!/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return ranged(req, res, body);
  const encoded = gzipSync(body);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-encoding': 'gzip',
    'content-length': encoded.length,
  });
  res.end(req.method === 'HEAD' ? undefined : encoded);
}

/** Answers a single `Range: bytes=a-b` with 206 and Content-Range, as static file servers do; else the whole body. */
function ranged(req: IncomingMessage, res: ServerResponse, body: Buffer, contentType = 'text/html; charset=utf-8') {
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range || Number(range[1]) >= body.length) return html(res, body, 200, contentType);
  const start = Number(range[1]);
  const end = Math.min(body.length - 1, range[2] ? Number(range[2]) : body.length - 1);
  res.writeHead(206, {
    'content-type': contentType,
    'content-range': `bytes ${start}-${end}/${body.length}`,
    'content-length': end - start + 1,
  });
  res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
}

export interface FixtureSite {
  origin: string;
  url(path: string): string;
  hits(path?: string): number;
  /** Most requests whose path starts with `prefix` that were in flight at once. */
  maxConcurrent(prefix: string): number;
  close(): Promise<void>;
}

/**
 * The site on a port of its own. With `t` (a test's context, or `{ after }` at the top level of a file) it closes when
 * that test or file ends.
 */
export async function startFixtureSite(t?: { after(fn: () => Promise<void>): unknown }): Promise<FixtureSite> {
  const hits = new Map<string, number>();
  const spans: { path: string; start: number; end: number }[] = [];
  let total = 0;

  const routes: Record<string, Handler> = {
    '/article': (_req, res) => html(res, ARTICLE_HTML),
    '/long': (_req, res) => html(res, LONG_HTML),
    '/metadata': (_req, res) => html(res, METADATA_HTML),
    '/gzip': (_req, res) => {
      const body = gzipSync(ARTICLE_HTML);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-encoding': 'gzip',
        'content-length': body.length,
      });
      res.end(body);
    },
    '/markdown': (req, res) => {
      // eslint-disable-next-line no-restricted-syntax -- a site as lax as many real ones
      if ((req.headers.accept ?? '').includes('text/markdown'))
        html(res, MARKDOWN_DOC, 200, 'text/markdown; charset=utf-8');
      else html(res, '<html><body><p>html version</p></body></html>');
    },
    '/links': (_req, res) => html(res, LINKS_MD, 200, 'text/markdown; charset=utf-8'),
    '/links-long': (_req, res) => html(res, LINKS_LONG_MD, 200, 'text/markdown; charset=utf-8'),
    '/plain.txt': (_req, res) => html(res, 'Just plain text.\nSecond line.', 200, 'text/plain; charset=utf-8'),
    // A character that is 4 o200k tokens on its own: a budget below that cannot hold even the first one.
    '/rare.txt': (_req, res) => html(res, '𪛔𪛔 is a rare character.', 200, 'text/plain; charset=utf-8'),
    '/data.json': (_req, res) => html(res, '{"a": 1}', 200, 'application/json'),
    '/image.png': (_req, res) =>
      html(res, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), 200, 'image/png'),
    '/archive.zip': (_req, res) => html(res, Buffer.from('PK\u0003\u0004rest-of-zip'), 200, 'application/zip'),
    '/charset/latin1': (_req, res) =>
      html(
        res,
        Buffer.from(charsetPage('Café crème', 'Déjà vu à la française, naïve façade.'), 'latin1'),
        200,
        'text/html; charset=iso-8859-1',
      ),
    '/charset/win1252': (_req, res) => {
      // 0x93/0x94 are curly quotes and 0x80 the euro sign in windows-1252, not in Latin-1.
      const page = Buffer.concat([
        Buffer.from('<!doctype html><html><head><title>Prices</title></head><body><article><h1>Prices</h1><p>He said '),
        Buffer.from([0x93]),
        Buffer.from('ten euros'),
        Buffer.from([0x94]),
        Buffer.from(' and paid 10'),
        Buffer.from([0x80]),
        Buffer.from(
          ' for the bread, which was a fair price in that little town by the sea.</p></article></body></html>',
        ),
      ]);
      html(res, page, 200, 'text/html; charset=windows-1252');
    },
    '/charset/sjis': (_req, res) =>
      html(
        res,
        iconv.encode(charsetPage('日本語のページ', '吾輩は猫である。名前はまだ無い。', 'shift_jis'), 'shift_jis'),
        200,
        'text/html',
      ),
    '/charset/gbk': (_req, res) =>
      html(
        res,
        iconv.encode(charsetPage('中文页面', '这是一个用于测试的中文段落。', 'gbk'), 'gbk'),
        200,
        'text/html; charset=gbk',
      ),
    '/charset/bom': (_req, res) =>
      html(
        res,
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from(charsetPage('Ünïcödé BOM', 'Straße und Grüße aus Köln.')),
        ]),
        200,
        'text/html',
      ),
    '/nolength': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write(ARTICLE_HTML.slice(0, 500));
      res.end(ARTICLE_HTML.slice(500));
    },
    '/ranged/scripted': (req, res) => ranged(req, res, Buffer.from(SCRIPTED_LONG_HTML)),
    '/ranged/article': (req, res) => ranged(req, res, Buffer.from(ARTICLE_HTML)),
    '/gzipped/article': (req, res) => gzipped(req, res, Buffer.from(ARTICLE_HTML)),
    '/gzipped/script-tail': (req, res) => gzipped(req, res, Buffer.from(SCRIPT_TAIL_HTML)),
    // Ranges answered with 501 (as some servers and proxies do); HEAD works.
    '/range-refused': (req, res) => {
      if (req.headers.range) return html(res, 'ranges are not implemented', 501, 'text/plain');
      html(res, Buffer.from(SCRIPTED_LONG_HTML));
    },
    '/head-refused': (req, res) => {
      if (req.method === 'HEAD') return html(res, '', 405);
      const body = Buffer.from(ARTICLE_HTML);
      if (req.headers.range === 'bytes=0-0') {
        res.writeHead(206, {
          'content-type': 'text/html',
          'content-range': `bytes 0-0/${body.length}`,
          'content-length': 1,
        });
        return void res.end(body.subarray(0, 1));
      }
      html(res, body);
    },
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><html><head><title>Big</title></head><body><article><h1>Big page</h1>');
      const paragraph = `<p>${'A long paragraph of words that repeats. '.repeat(20)}</p>\n`;
      for (let i = 0; i < 2000; i++) res.write(paragraph);
      res.end('</article></body></html>');
    },
    '/loop': (_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
  };

  const handle: Handler = async (req, res, url) => {
    const path = url.pathname;
    const exact = routes[path];
    if (exact) return exact(req, res, url);
    let m = /^\/redirect\/(\d+)$/.exec(path);
    if (m) {
      const n = Number(m[1]);
      res.writeHead(n % 2 ? 301 : 302, { location: n > 1 ? `/redirect/${n - 1}` : '/article' });
      return void res.end();
    }
    m = /^\/hostile\/([a-z-]+)(?:\/.*)?$/.exec(path);
    const hostile = m && HOSTILE_PAGES[m[1]!];
    if (hostile) {
      const kind = m![1]!;
      let body = hostileBodies.get(kind);
      if (!body) {
        body = Buffer.from(hostile());
        hostileBodies.set(kind, (body = BROTLI_KINDS.has(kind) ? brotliCompressSync(body) : body));
      }
      if (!BROTLI_KINDS.has(kind)) return html(res, body);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'br' });
      return void res.end(body);
    }
    if (path === '/moved-nowhere')
      return html(res, '<html><body><h1>Moved</h1><p>This page has moved somewhere.</p></body></html>', 302);
    if (path === '/to-javascript') {
      res.writeHead(302, { location: 'javascript:alert(1)' });
      return void res.end();
    }
    m = /^\/status\/(\d+)$/.exec(path);
    if (m) return html(res, `<html><body><h1>Error ${m[1]}</h1></body></html>`, Number(m[1]));
    m = /^\/delay\/(\d+)(?:\/.*)?$/.exec(path);
    if (m) {
      await sleep(Number(m[1]));
      return html(
        res,
        `<!doctype html><html><head><title>Delayed ` +
          `${path}</title></head><body><article><h1>Delayed</h1><p>This page took ${m[1]} ms to ` +
          `answer, on purpose, for the concurrency tests of the batch ` +
          `endpoint.</p></article></body></html>`,
      );
    }
    if (path.startsWith('/unique/')) {
      return html(
        res,
        `<!doctype html><html><head><title>Unique ` +
          `${path}</title></head><body><article><h1>Unique</h1><p>Page ${path} served at hit ` +
          `${hits.get(path)} of this path, so tests can tell a fresh fetch from a cached ` +
          `one.</p></article></body></html>`,
      );
    }
    m = /^\/changes-at\/(\d+)(?:\/.*)?$/.exec(path);
    if (m) {
      // Version A until the nth request of this path, version B from then on: a page that changed once.
      const version = (hits.get(path) ?? 0) < Number(m[1]) ? 'A' : 'B';
      return html(
        res,
        `<!doctype html><html><head><title>Versioned</title></head><body><article><h1>Versioned</h1>` +
          `<p>This is version ${version} of a page that changes once, for the tests of max_age and changed.</p>` +
          `<aside class="note">A note beside version ${version}.</aside></article></body></html>`,
      );
    }
    if (path === '/echo') {
      // The query string as the site received it, for GET /r/ (which must pass the target's own query on).
      return html(
        res,
        `<!doctype html><html><head><title>Echo</title></head><body><article><h1>Echo</h1>` +
          `<p>The site received the query string [${url.search}] with this request.</p></article></body></html>`,
      );
    }
    html(res, '<html><body><h1>Not found</h1></body></html>', 404);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture.invalid');
    const key = url.pathname;
    total++;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const span = { path: key, start: performance.now(), end: Infinity };
    spans.push(span);
    res.on('close', () => (span.end = performance.now()));
    Promise.resolve(handle(req, res, url)).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  t?.after(close);
  return {
    origin,
    url: (path) => origin + path,
    hits: (path) => (path === undefined ? total : (hits.get(path) ?? 0)),
    maxConcurrent: (prefix) => {
      const events = spans
        .filter((s) => s.path.startsWith(prefix))
        .flatMap((s) => [[s.start, 1] as const, [s.end, -1] as const])
        .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let now = 0;
      let most = 0;
      for (const [, delta] of events) most = Math.max(most, (now += delta));
      return most;
    },
    close,
  };
}
