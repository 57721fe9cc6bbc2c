// A TCP proxy in front of a database that a test can cut (every connection dropped, nothing listening) and resume.
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type CuttableProxy = Awaited<ReturnType<typeof startCuttableProxy>>;

/** Forwards 127.0.0.1:<port> to `target`; cut() drops every connection and stops listening, resume() listens again. */
export async function startCuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    port,
    async cut() {
      await new Promise((resolve) => {
        server.close(resolve);
        for (const socket of sockets) socket.destroy();
      });
    },
    resume: listen,
    /** Stops listening and cuts what is still connected: a pool's idle connections would hold close() for ever. */
    async close() {
      await new Promise((resolve) => {
        server.close(resolve);
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
