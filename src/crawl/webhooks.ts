// Crawl webhooks: each event a job of its own (so a delivery outlives the process that made it), POSTed through the
// one SSRF guard, signed (webhook-signature.ts), with an event id that stays the same across retries so receivers can
// drop duplicates. Delivered at least once: a failure (not 2xx, or no answer) is tried again with backoff.
import { randomUUID } from 'node:crypto';
import type { CrawlEvent } from '../contract/crawl.js';
import type { SafeClient } from '../net/safe-client.js';
import { signWebhook, WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from './webhook-signature.js';

export interface WebhookTarget {
  url: string;
  events: readonly CrawlEvent[];
  secret: string;
  headers?: Record<string, string>;
}

export interface WebhookDelivery {
  target: WebhookTarget;
  id: string;
  type: CrawlEvent;
  crawlId: string;
  data: object;
  created: number;
  attempt: number;
}

/** Tries of one delivery, and the wait before each next one (1 s, 2 s, 4 s … 5 min at most). */
export const WEBHOOK_ATTEMPTS = 8;
export const backoffMs = (attempt: number) => Math.min(300_000, 1000 * 2 ** (attempt - 1));

export function newDelivery(
  target: WebhookTarget,
  type: CrawlEvent,
  crawlId: string,
  data: object,
  now: number,
): WebhookDelivery | null {
  if (!target.events.includes(type)) return null;
  return { target, id: `evt_${randomUUID()}`, type, crawlId, data, created: now, attempt: 1 };
}

/** Sends one delivery: true when the receiver answered 2xx. */
export async function deliver(client: SafeClient, delivery: WebhookDelivery, nowSeconds: number): Promise<boolean> {
  const body = JSON.stringify({
    id: delivery.id,
    type: delivery.type,
    created: Math.floor(delivery.created / 1000),
    crawl_id: delivery.crawlId,
    data: delivery.data,
  });
  const result = await client.request(new URL(delivery.target.url), {
    method: 'POST',
    body,
    maxBytes: 64 * 1024,
    headers: {
      ...delivery.target.headers,
      'content-type': 'application/json',
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(delivery.target.secret, body, nowSeconds),
      [WEBHOOK_EVENT_ID_HEADER]: delivery.id,
    },
  });
  return result.ok && result.response.status >= 200 && result.response.status < 300;
}
