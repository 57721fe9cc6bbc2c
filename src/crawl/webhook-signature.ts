// Signatures of crawl webhooks, made as Stripe makes its own (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`)
// so receivers can check them with code they already know: the body is ours, unchanged, and recent.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header of the signature, as `Stripe-Signature` is Stripe's. */
export const WEBHOOK_SIGNATURE_HEADER = 'fetchdown-signature';
/** The header of the event's id: the same on every retry, so a receiver can drop what it already has. */
export const WEBHOOK_EVENT_ID_HEADER = 'fetchdown-event-id';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

const mac = (secret: string, body: string, timestamp: number) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();

/** The header value for `body` sent at `nowSeconds` (fractions dropped, as the header holds whole seconds). */
export function signWebhook(secret: string, body: string, nowSeconds: number): string {
  const timestamp = Math.floor(nowSeconds);
  return `t=${timestamp},v1=${mac(secret, body, timestamp).toString('hex')}`;
}

/**
 * Whether `header` signs `body` with `secret` within `toleranceSeconds` of `nowSeconds`, either way (a replayed old
 * delivery, or a timestamp from the future). Any one of several `v1` entries may match: a sender rotating its secret
 * signs with the old and the new one until its receivers have the new one.
 */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    // A second `t` could pair a fresh timestamp with an old signature: refuse rather than pick one.
    if (key === 't') {
      if (timestamp !== undefined || !/^\d+$/.test(value)) return false;
      timestamp = Number(value);
    } else if (key === 'v1' && HEX_SHA256.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = mac(secret, body, timestamp);
  // Every entry is compared, so the time taken does not say which one matched.
  return signatures.reduce((matched, signature) => timingSafeEqual(signature, expected) || matched, false);
}
