// The agent operations as calls to a Fetchdown API with X-Service-Key: for agents whose usage is billed to an account.
// An error answer is kept as the API sent it, so a tool error reads exactly like the HTTP error.
import { request } from 'undici';
import type { AgentOperations } from './agent.js';
import { RemoteApiError } from './failure.js';

export { RemoteApiError } from './failure.js';

export interface RemoteOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export function createRemoteOperations(options: RemoteOptions): AgentOperations {
  const base = options.baseUrl.replace(/\/+$/, '');

  async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-service-key': options.apiKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const response = await request(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `did not answer within ${options.timeoutMs} ms`
          : `could not be reached (${describe(error)})`;
      throw new RemoteApiError(502, {
        detail: `the Fetchdown API at ${base} ${reason}`,
        code: 'upstream_unreachable',
        retry_hint: 'check FETCHDOWN_API_URL, or retry later',
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RemoteApiError(502, {
        detail: `the Fetchdown API at ${base} answered ${status} with something that is not JSON`,
        code: 'upstream_status',
      });
    }
    if (status >= 400) {
      const errorBody =
        parsed !== null && typeof parsed === 'object'
          ? (parsed as Record<string, unknown>)
          : { detail: String(parsed) };
      throw new RemoteApiError(status, errorBody);
    }
    return parsed as T;
  }

  return {
    fetchUrl: (args) => call('POST', '/fetch', args),
    estimate: (args) => call('GET', `/estimate?url=${encodeURIComponent(args.url)}`),
    fetchMultiple: (args) => call('POST', '/fetch/batch', args),
    searchAndFetch: (args) => call('POST', '/search', args),
    mapSite: (args) => call('POST', '/map', args),
    startCrawl: (args) => call('POST', '/crawl', args),
    crawlStatus: ({ id, cursor, limit }) => {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor !== undefined && { cursor }) });
      return call('GET', `/crawl/${encodeURIComponent(id)}?${query}`);
    },
    cancelCrawl: ({ id }) => call('DELETE', `/crawl/${encodeURIComponent(id)}`),
    async screenshot(file) {
      const response = await request(`${base}/screenshots/${encodeURIComponent(file)}`, {
        headers: { 'x-service-key': options.apiKey },
        signal: AbortSignal.timeout(options.timeoutMs),
      }).catch(() => null);
      if (response?.statusCode !== 200) {
        await response?.body.dump();
        return null;
      }
      const type = String(response.headers['content-type'] ?? 'image/png');
      return { type, bytes: Buffer.from(await response.body.arrayBuffer()) };
    },
  };
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
