// A loaded machine may leave a page no CPU in time: the server answers 503 server_busy (or extraction_busy), its own
// trouble, retryable and never charged (issue 31). Tests that need the page served ask again, as a client would.
import type { TestApp } from './test-app.js';

const BUSY = new Set(['server_busy', 'extraction_busy']);

export async function requestServed(
  api: TestApp,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  tries = 5,
): ReturnType<TestApp['request']> {
  for (let attempt = 1; ; attempt++) {
    const res = await api.request(method, path, body, headers);
    if (res.status !== 503 || !BUSY.has(res.body?.code) || attempt === tries) return res;
  }
}
