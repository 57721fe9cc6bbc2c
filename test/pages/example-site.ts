// The example site on 127.0.0.1: the pages in test/fixtures/example-site, and a PDF made by the PDF fixture helper.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeReportPdf } from '../helpers/pdf-fixtures.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'example-site');

const FILES: Record<string, [file: string, type: string]> = {
  '/article': ['article.html', 'text/html; charset=utf-8'],
  '/guide': ['guide.html', 'text/html; charset=utf-8'],
  '/planner': ['app.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript'],
  '/api/plan.json': ['plan.json', 'application/json'],
};

export async function startExampleSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const pdf = await makeReportPdf();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site.invalid').pathname;
    if (path === '/report.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    const file = FILES[path];
    if (!file) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': file[1] }).end(readFileSync(join(DIR, file[0])));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
