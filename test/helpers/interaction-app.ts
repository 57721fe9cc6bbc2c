// The setting of the interaction tests (issue 34): the interaction site on 127.0.0.1 (standing for the public
// internet), a secret server on 127.0.0.2 (an internal address the guard refuses), and the real app with its guard on,
// one account's key on a paid plan to call it with; plus readers for what the tests check in answers and images.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { setPlan, signUp, withKey } from './accounts.js';
import { errorShapeProblem } from './error-shapes.js';
import { startSecretServer } from './fixture-fetchers.js';
import { startInteractionSite, type InteractionSite } from './interaction-site.js';
import { buildTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export type Answer = Awaited<ReturnType<TestApp['request']>>;

export interface InteractionWorld {
  site: InteractionSite;
  secret: Awaited<ReturnType<typeof startSecretServer>>;
  api: TestApp;
  apiKey: string;
  /** POST /fetch with the account's key (or `key`), a fresh fetch unless use_cache is given. */
  fetchPage(body: Record<string, unknown>, key?: string): Promise<Answer>;
  close(): Promise<void>;
}

/** The base URL screenshots are served from in these tests: their answers name it. */
export const PUBLIC_BASE_URL = 'https://fetchdown.test';

/**
 * Starts the world; call it in a file-level `before` and its `close` in a file-level `after` (the app closes itself
 * when the file's tests end).
 */
export async function startInteractionWorld(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<InteractionWorld> {
  const secret = await startSecretServer('127.0.0.2');
  const site = await startInteractionSite({ secretOrigin: secret.origin });
  const api = await buildTestApp(
    { after },
    {
      FETCH_ALLOW_PRIVATE_NETWORKS: '0',
      ROBOTS_TXT: 'ignore',
      BROWSER_POOL_SIZE: '2',
      PUBLIC_BASE_URL,
      ...env,
    },
    { ...options, addresses: { isBlocked: (ip) => ip !== '127.0.0.1' } },
  );
  const { apiKey } = await signUp(api);
  // A plan that pays in credits (the free one counts fetches, one each whatever the fetcher): prices show.
  await setPlan(api, apiKey, 'starter');
  return {
    site,
    secret,
    api,
    apiKey,
    fetchPage: (body, key = apiKey) => api.request('POST', '/fetch', { use_cache: false, ...body }, withKey(key)),
    async close() {
      await site.close();
      await secret.close();
    },
  };
}

/** A coded error answer: its status, code, the documented shape. */
export function assertError(res: Answer, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body?.code, code, res.text);
  assert.equal(errorShapeProblem(res.status, res.body), null, res.text);
}

/** A retryable failure tells the caller to try again later. */
export function assertRetryable(res: Answer): void {
  assert.match(res.body?.retry_hint ?? '', /^retry later/, res.text);
}

/**
 * A 422 in FastAPI's shape with an issue at `loc` (of `type` when given); returns that issue. Other issues may be there
 * too, but the one asked for must be.
 */
export function assertInvalid(res: Answer, loc: (string | number)[], type?: string): { msg: string; type: string } {
  assert.equal(res.status, 422, res.text);
  assert.equal(errorShapeProblem(422, res.body), null, res.text);
  const issue = (res.body.detail as { loc: unknown[]; msg: string; type: string }[]).find(
    (item) => JSON.stringify(item.loc) === JSON.stringify(loc),
  );
  assert.ok(issue, `no issue at ${JSON.stringify(loc)}: ${res.text}`);
  if (type !== undefined) assert.equal(issue.type, type, res.text);
  return issue;
}

/** A successful answer read by the browser, at the browser's price. */
export function assertBrowserAnswer(res: Answer): string {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.fetch_info.fetcher_used, 'browser', res.text);
  assert.equal(res.body.credits, 5, res.text);
  return res.body.markdown as string;
}

/** Fetches an image URL of an answer from this app (its path: the base URL names the public address). */
export async function getImage(
  api: TestApp,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const { pathname } = new URL(url);
  const response = await fetch(api.base + pathname, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's size from its IHDR chunk (the first, right after the signature). */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.ok(bytes.subarray(0, 8).equals(PNG_SIGNATURE), `not a PNG: ${bytes.subarray(0, 8).toString('hex')}`);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export function assertJpeg(bytes: Buffer): void {
  assert.equal(bytes.subarray(0, 3).toString('hex'), 'ffd8ff', 'a JPEG starts with FF D8 FF');
}

/** No image inside JSON: neither a PNG's nor a JPEG's base64 start, nor a data: URL, nor a long base64 run. */
export function assertNoBase64Image(text: string): void {
  assert.doesNotMatch(text, /iVBORw0KGgo|\/9j\/|data:image\//);
  assert.doesNotMatch(text, /[A-Za-z0-9+/]{1000,}/);
}
