// The browser's only way out: a forward proxy on 127.0.0.1 that Chromium is started with. It connects with the SSRF
// guard's lookup, which resolves once, refuses blocked addresses and hands the socket exactly the address it checked,
// so DNS rebinding cannot slip a page's request past the route-level check (Chromium never resolves names itself).
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { AddressPolicy } from '../net/guard.js';

export interface EgressProxy {
  /** `http://127.0.0.1:port`, for Chromium's --proxy-server. */
  readonly url: string;
  /** Connections refused by the guard since start (tests and metrics). */
  readonly refused: number;
  close(): Promise<void>;
}

/** Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const CONNECT_TIMEOUT_MS = 15_000;

/** Marks the proxy's own refusals of plain-http requests, so a refused document is not taken for the site's 403. */
export const REFUSED_HEADER = 'x-fetchdown-refused';

function target(raw: string, scheme: 'http:' | 'https:'): URL | null {
  try {
    const url = scheme === 'https:' ? new URL(`https://${raw}`) : new URL(raw);
    return url.protocol === scheme ? url : null;
  } catch {
    return null;
  }
}

export async function startEgressProxy(policy: AddressPolicy): Promise<EgressProxy> {
  let refused = 0;
  const sockets = new Set<Socket>();

  /** Opens a TCP connection the guard allows; null (and counted) when it refuses. */
  function open(url: URL, defaultPort: number): Promise<Socket | null> {
    if (policy.checkUrl(url)) {
      refused++;
      return Promise.resolve(null);
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return new Promise((resolve) => {
      const socket = connect({ host, port: Number(url.port) || defaultPort, lookup: policy.lookup, timeout: CONNECT_TIMEOUT_MS });
      const fail = (error?: Error) => {
        if ((error as { code?: string } | undefined)?.code === 'ERR_BLOCKED_ADDRESS') refused++;
        socket.destroy();
        resolve(null);
      };
      socket.once('connect', () => {
        socket.setTimeout(0);
        socket.off('error', fail);
        resolve(socket);
      });
      socket.once('error', fail);
      socket.once('timeout', () => fail());
    });
  }

  // Plain http: the request line carries the absolute URL.
  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = target(req.url ?? '', 'http:');
    if (!url) return void res.writeHead(400).end();
    const socket = await open(url, 80);
    if (!socket) return void res.writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: '1' }).end('refused by the SSRF guard');
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.connection = 'close'; // one request per upstream socket: nothing pools connections past the guard
    const upstream = httpRequest({ createConnection: () => socket, method: req.method, path: url.pathname + url.search, headers, setHost: false });
    req.on('error', () => upstream.destroy());
    upstream.on('response', (response) => {
      response.on('error', () => res.destroy()); // the site cut the answer short
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(response.statusCode ?? 502, out);
      response.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  }

  // https and wss: a CONNECT tunnel; TLS stays end to end between Chromium and the site.
  async function tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const url = target(req.url ?? '', 'https:');
    const upstream = url ? await open(url, 443) : null;
    if (!upstream) return void client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
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
  server.on('upgrade', (_req: IncomingMessage, client: Socket) => client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'));
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
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
