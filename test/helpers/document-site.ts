// A loopback site that serves files as given: each path its bytes and its Content-Type (or none), so tests can serve
// a DOCX as octet-stream, an HTML error page as a DOCX, a zip bomb, a truncated file.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUp, withKey } from './accounts.js';
import type { TestApp } from './test-app.js';

export interface ServedFile {
  /** Undefined: no Content-Type header at all. */
  type: string | undefined;
  body: Buffer | string;
}

export interface DocumentSite {
  url(path: string): string;
  close(): Promise<void>;
}

export async function startDocumentSite(files: Record<string, ServedFile>): Promise<DocumentSite> {
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, file.type === undefined ? {} : { 'content-type': file.type }).end(file.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => origin + path,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Media types of the formats, as servers send them. */
export const MEDIA = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  epub: 'application/epub+zip',
  octet: 'application/octet-stream',
} as const;

/** POST /fetch of `url` by a new account: 422 unreadable_document, its detail matching `why`, and nothing charged. */
export async function assertUnreadable(api: TestApp, url: string, why: RegExp): Promise<void> {
  const { apiKey } = await signUp(api);
  const res = await api.request('POST', '/fetch', { url }, withKey(apiKey));
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.code, 'unreadable_document');
  assert.match(res.body.detail, why);
  assert.ok(res.body.request_id);
  const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
  assert.equal(usage.body.credits_used, 0);
}
