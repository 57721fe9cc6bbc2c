// A webhook receiver on 127.0.0.1 for the crawl tests: records every delivery as it arrived, and can refuse the first
// few with a 500 so the sender's retries show.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookDelivery {
  /** The request's headers, names in lower case. */
  headers: IncomingHttpHeaders;
  /** The body byte for byte as UTF-8 text, what a signature is checked against. */
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** The status this receiver answered: 500 for the first `failFirst` deliveries, else 200. */
  status: number;
  /** Epoch milliseconds of its arrival. */
  receivedAt: number;
}

export interface WebhookReceiver {
  /** Where to send: `http://127.0.0.1:<port>/hooks`. */
  url: string;
  /** Every delivery so far, in the order they arrived, refused ones included. */
  deliveries(): WebhookDelivery[];
  /** Resolves with the deliveries once `predicate` holds for them; rejects after `timeoutMs`, listing what came. */
  waitFor(predicate: (deliveries: WebhookDelivery[]) => boolean, timeoutMs?: number): Promise<WebhookDelivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { failFirst?: number } = {}): Promise<WebhookReceiver> {
  const failFirst = options.failFirst ?? 0;
  const received: WebhookDelivery[] = [];
  const waiters = new Set<() => void>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const status = received.length < failFirst ? 500 : 200;
      received.push({ headers: req.headers, body, json, status, receivedAt: Date.now() });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again');
      for (const check of waiters) check();
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const waitFor = (predicate: (deliveries: WebhookDelivery[]) => boolean, timeoutMs = 10_000) =>
    new Promise<WebhookDelivery[]>((resolve, reject) => {
      const check = () => {
        if (!predicate([...received])) return;
        settle();
        resolve([...received]);
      };
      const timer = setTimeout(() => {
        settle();
        const seen = received.map((d) => `${d.status} ${d.body.slice(0, 200)}`).join('\n');
        reject(new Error(`no match among ${received.length} webhook deliveries in ${timeoutMs} ms:\n${seen}`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries: () => [...received],
    waitFor,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
