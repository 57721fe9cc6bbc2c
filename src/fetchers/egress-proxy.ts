// The browser's only way out: a forward proxy on 127.0.0.1 that Chromium is started with. It connects with the SSRF
// guard's lookup, which resolves once, refuses blocked addresses and hands the socket exactly the address it checked,
// so DNS rebinding cannot slip a page's request past the route-level check (Chromium never resolves names itself).
// With credentials, only the pages' contexts (which hold them) get through: the browser's own traffic is refused.
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  STATUS_CODES,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { FetchFailure } from '../errors.js';
import { failureFromError } from '../net/failures.js';
import type { AddressPolicy } from '../net/guard.js';

export interface EgressProxy {
  /** `http://127.0.0.1:port`, for Chromium's --proxy-server. */
  readonly url: string;
  /** Connections refused by the guard since start (tests and metrics). */
  readonly refused: number;
  /** Requests refused for want of the proxy credentials: the browser's own background traffic (tests and metrics). */
  readonly unauthenticated: number;
  /**
   * Why the last connection to this URL's host and port failed, as the HTTP client would say it (blocked_url,
   * upstream_unreachable…); null once one succeeds. Chromium only reports "tunnel failed" for https: this says why.
   */
  failureFor(url: URL): FetchFailure | null;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /**
   * When set, only requests carrying these proxy credentials go out; the rest are answered 407. The pool gives them to
   * its page contexts alone, so Chromium's own traffic (component updates, account checks) never leaves.
   */
  credentials?: { username: string; password: string };
  /** Called with every URL (http) or host and port (CONNECT) asked for, and whether it carried the credentials. */
  onRequest?: (target: URL, authenticated: boolean) => void;
}

/** Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const CONNECT_TIMEOUT_MS = 15_000;
const AUTH_REQUIRED =
  'HTTP/1.1 407 Proxy Authentication Required\r\n' +
  'proxy-authenticate: Basic realm="fetchdown"\r\ncontent-length: 0\r\n\r\n';

/** Marks the proxy's own failure answers to plain-http requests, so they are not taken for the site's 403 or 502. */
export const FAILURE_HEADER = 'x-fetchdown-egress-failure';
/** Failures remembered per host and port: enough for the pages in flight, bounded whatever a page asks for. */
const REMEMBERED_FAILURES = 256;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `host:port` with the scheme's default port spelled out, as a CONNECT line names it. */
function authorityOf(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
}

function target(raw: string, scheme: 'http:' | 'https:'): URL | null {
  try {
    const url = scheme === 'https:' ? new URL(`https://${raw}`) : new URL(raw);
    return url.protocol === scheme ? url : null;
  } catch {
    return null;
  }
}

export async function startEgressProxy(policy: AddressPolicy, options: EgressProxyOptions = {}): Promise<EgressProxy> {
  let refused = 0;
  let unauthenticated = 0;
  const sockets = new Set<Socket>();
  const failures = new Map<string, FetchFailure>();
  const expected = options.credentials
    ? digest(
        `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`,
      )
    : null;

  /** True when no credentials are required or the request carries them; counted otherwise. */
  function authenticated(req: IncomingMessage, url: URL): boolean {
    const ok = !expected || timingSafeEqual(digest(req.headers['proxy-authorization'] ?? ''), expected);
    if (!ok) unauthenticated++;
    options.onRequest?.(url, ok);
    return ok;
  }

  function remember(url: URL, failure: FetchFailure | null): void {
    const key = authorityOf(url);
    failures.delete(key);
    if (!failure) return;
    if (failure.code === 'blocked_url') refused++;
    failures.set(key, failure);
    if (failures.size > REMEMBERED_FAILURES) failures.delete(failures.keys().next().value!);
  }

  /** Opens a TCP connection the guard allows; otherwise the failure, as the HTTP client would report it. */
  function open(url: URL, defaultPort: number): Promise<{ socket: Socket } | { failure: FetchFailure }> {
    const checked = policy.checkUrl(url);
    if (checked) {
      remember(url, checked);
      return Promise.resolve({ failure: checked });
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return new Promise((resolve) => {
      const socket = connect({
        host,
        port: Number(url.port) || defaultPort,
        lookup: policy.lookup,
        timeout: CONNECT_TIMEOUT_MS,
      });
      const fail = (failure: FetchFailure) => {
        socket.destroy();
        remember(url, failure);
        resolve({ failure });
      };
      socket.once('connect', () => {
        socket.setTimeout(0);
        socket.off('error', onError);
        remember(url, null);
        resolve({ socket });
      });
      const onError = (error: Error) => fail(failureFromError(error, url));
      socket.once('error', onError);
      socket.once('timeout', () =>
        fail({
          code: 'upstream_timeout',
          detail: `${url.host} did not accept a connection within ${CONNECT_TIMEOUT_MS} ms`,
          retryable: true,
        }),
      );
    });
  }

  /** The proxy's own answer when it could not reach the site: 403 for the guard's refusals, 502 otherwise. */
  function failureStatus(failure: FetchFailure): number {
    return failure.code === 'blocked_url' ? 403 : failure.code === 'upstream_timeout' ? 504 : 502;
  }

  // Plain http: the request line carries the absolute URL.
  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = target(req.url ?? '', 'http:');
    if (!url) return void res.writeHead(400).end();
    if (!authenticated(req, url))
      return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="fetchdown"' }).end();
    const opened = await open(url, 80);
    if ('failure' in opened) {
      return void res
        .writeHead(failureStatus(opened.failure), { 'content-type': 'text/plain', [FAILURE_HEADER]: '1' })
        .end(opened.failure.detail);
    }
    const { socket } = opened;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.connection = 'close'; // one request per upstream socket: nothing pools connections past the guard
    const upstream = httpRequest({
      createConnection: () => socket,
      method: req.method,
      path: url.pathname + url.search,
      headers,
      setHost: false,
    });
    req.on('error', () => upstream.destroy());
    upstream.on('response', (response) => {
      response.on('error', () => res.destroy()); // the site cut the answer short
      const out: Record<string, string | string[]> = {};
      // A site cannot pass itself off as the proxy: its own copy of the marker is dropped.
      for (const [name, value] of Object.entries(response.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name) && name !== FAILURE_HEADER) out[name] = value;
      res.writeHead(response.statusCode ?? 502, out);
      response.pipe(res);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) return void res.destroy();
      const failure = failureFromError(error, url);
      remember(url, failure);
      res
        .writeHead(failureStatus(failure), { 'content-type': 'text/plain', [FAILURE_HEADER]: '1' })
        .end(failure.detail);
    });
    req.pipe(upstream);
  }

  // https and wss: a CONNECT tunnel; TLS stays end to end between Chromium and the site.
  async function tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const url = target(req.url ?? '', 'https:');
    if (!url) return void client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
    if (!authenticated(req, url)) return void client.end(AUTH_REQUIRED);
    const opened = await open(url, 443);
    if ('failure' in opened) {
      const status = failureStatus(opened.failure);
      return void client.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-length: 0\r\n\r\n`);
    }
    const upstream = opened.socket;
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client).pipe(upstream);
  }

  const server = createServer((req, res) => void forward(req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(req, client, head));
  // Plain ws:// upgrades through the proxy: the browser blocks WebSockets before they get here; refuse any that do.
  server.on('upgrade', (_req: IncomingMessage, client: Socket) =>
    client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'),
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    get unauthenticated() {
      return unauthenticated;
    },
    failureFor: (url) => failures.get(authorityOf(url)) ?? null,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
