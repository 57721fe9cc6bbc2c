// A tiny HTTP server for net tests: one handler, bound to a loopback address on port 0, counting what reaches it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Loopback {
  host: string;
  port: number;
  origin: string;
  url(path: string): string;
  hits(): number;
  /** Requests as they arrived: method, path and headers. */
  seen: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export async function startLoopback(handler: Handler, host = '127.0.0.1'): Promise<Loopback> {
  const seen: Loopback['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    host,
    port,
    origin,
    url: (path) => origin + path,
    hits: () => seen.length,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
export async function findClosedPort(): Promise<number> {
  const probe = await startLoopback(() => {});
  await probe.close();
  return probe.port;
}
