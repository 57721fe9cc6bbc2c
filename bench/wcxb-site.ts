// The WCXB dev pages for the query and estimate benchmarks: every 7th page (214 of 1,497), served from 127.0.0.1 by two
// sites, one gzipping when asked as real web servers do, one plain with Content-Length and single byte ranges as a
// static file server does; and the real app over HTTP in front of them.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { startBenchApp } from './bench-app.js';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const WCXB_DIR = fileURLToPath(new URL('../../shared/bench/wcxb/dev/', import.meta.url));

export interface WcxbPage {
  id: string;
  url: string;
  title: string;
  with: string[];
  raw: Buffer;
}

/** Every 7th page from the first, in id order: the estimate's calibration used every 7th from the 4th. */
export function loadWcxbPages(): WcxbPage[] {
  const truth = JSON.parse(readFileSync(join(WCXB_DIR, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { url: string; title?: string; with?: string[] }
  >;
  const files = readdirSync(join(WCXB_DIR, 'html')).sort();
  const pages: WcxbPage[] = [];
  for (let k = 0; k < files.length; k += 7) {
    const id = files[k]!.replace('.html.gz', '');
    const page = truth[id]!;
    const raw = gunzipSync(readFileSync(join(WCXB_DIR, 'html', files[k]!)));
    pages.push({ id, url: page.url, title: page.title ?? '', with: page.with ?? [], raw });
  }
  return pages;
}

export interface WcxbBench {
  /** The page on the site that compresses when asked (as real servers do), or on the one that never does. */
  pageUrl(page: WcxbPage, serving?: Serving): string;
  /** Body bytes a site has sent for a page. */
  bytesSent(page: WcxbPage, serving?: Serving): number;
  post(path: string, body: unknown): Promise<any>;
  get(path: string): Promise<any>;
  close(): Promise<void>;
}

export type Serving = 'gzip' | 'plain';

/**
 * One site: `gzip` answers a request that accepts gzip with the whole page gzipped (and the encoded Content-Length),
 * ignoring any range as nginx and most compressing servers do; otherwise, and always on `plain`, the page as it is,
 * with single byte ranges.
 */
async function startSite(pages: WcxbPage[], serving: Serving) {
  const byPath = new Map(pages.map((page) => [`/${page.id}.html`, page]));
  const gzipped = new Map<string, Buffer>();
  const sent = new Map<string, number>();
  const site = createServer((req, res) => {
    const page = byPath.get(req.url ?? '');
    if (!page) return void res.writeHead(404).end('not found');
    const send = (chunk: Buffer) => {
      sent.set(page.id, (sent.get(page.id) ?? 0) + chunk.length);
      res.end(chunk);
    };
    if (serving === 'gzip' && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      let body = gzipped.get(page.id);
      if (!body) gzipped.set(page.id, (body = gzipSync(page.raw)));
      res.writeHead(200, {
        'content-type': 'text/html',
        'content-encoding': 'gzip',
        'content-length': body.length,
        vary: 'accept-encoding',
      });
      return send(req.method === 'HEAD' ? Buffer.alloc(0) : body);
    }
    const body = page.raw;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = body.length - 1;
    if (range && Number(range[1]) < body.length) {
      start = Number(range[1]);
      end = Math.min(end, range[2] ? Number(range[2]) : end);
      res.writeHead(206, {
        'content-type': 'text/html',
        'content-range': `bytes ${start}-${end}/${body.length}`,
        'content-length': end - start + 1,
      });
    } else {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length });
    }
    send(req.method === 'HEAD' ? Buffer.alloc(0) : body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { site, sent, origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}` };
}

export async function startWcxbBench(pages: WcxbPage[]): Promise<WcxbBench> {
  const sites = { gzip: await startSite(pages, 'gzip'), plain: await startSite(pages, 'plain') };

  const { client, close } = await startBenchApp();
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await client.request({
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, ...((await res.body.json()) as object) };
  };
  return {
    pageUrl: (page, serving = 'gzip') => `${sites[serving].origin}/${page.id}.html`,
    bytesSent: (page, serving = 'gzip') => sites[serving].sent.get(page.id) ?? 0,
    post: (path, body) => call('POST', path, body),
    get: (path) => call('GET', path),
    async close() {
      await close();
      sites.gzip.site.close();
      sites.plain.site.close();
    },
  };
}
