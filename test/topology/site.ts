// The website the topology fetches: articles by id, large pages, slow pages. Keep-alive is held longer than the API's
// client keeps idle sockets, so these tests measure the topology, not a site closing reused connections.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Site {
  url(path: string): string;
  /** Requests served per path prefix ("/page/", "/large/"…). */
  hits(prefix: string): number;
  close(): Promise<void>;
}

const paragraph = (i: number) =>
  `<p>Paragraph ${i} of a page served to the topology test, with enough words to be extracted as content.</p>`;

function article(title: string, paragraphs: number): string {
  const body = Array.from({ length: paragraphs }, (_, i) => paragraph(i)).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><main><article><h1>${title}</h1>\n${body}\n</article></main></body></html>`;
}

export async function startSite(): Promise<Site> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site.invalid').pathname;
    const prefix = /^\/[^/]+\//.exec(path)?.[0] ?? path;
    hits.set(prefix, (hits.get(prefix) ?? 0) + 1);
    const send = (html: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
      res.end(html);
    };
    if (path.startsWith('/page/')) return send(article(`Page ${path.slice(6)}`, 12));
    // ~1 MB of HTML: 50 at once is what the memory bound is measured on.
    if (path.startsWith('/large/')) return send(article(`Large ${path.slice(7)}`, 9000));
    const slow = /^\/slow\/(\d+)\//.exec(path);
    if (slow) return void setTimeout(() => send(article(`Slow ${path}`, 12)), Number(slow[1]));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => origin + path,
    hits: (prefix) => hits.get(prefix) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
