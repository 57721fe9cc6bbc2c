// Verification of Stripe's webhook deliveries: the raw body against the Stripe-Signature header with the SDK and
// STRIPE_WEBHOOK_SECRET, within Stripe's default 300 s tolerance. Anything that fails is a 400 and changes nothing.
import Stripe from 'stripe';
import { AppError } from '../errors.js';

const TOLERANCE_SECONDS = 300;

export function verifyEvent(
  stripe: Stripe,
  secret: string,
  rawBody: Buffer,
  signature: string | undefined,
): Stripe.Event {
  if (signature === undefined || signature === '') {
    throw new AppError(
      'invalid_signature',
      'missing Stripe-Signature header: only Stripe (or `stripe listen`) can deliver events here',
    );
  }
  try {
    return stripe.webhooks.constructEvent(rawBody, signature, secret, TOLERANCE_SECONDS);
  } catch (error) {
    const reason =
      error instanceof Stripe.errors.StripeSignatureVerificationError
        ? error.message
        : 'the body is not a Stripe event';
    throw new AppError('invalid_signature', `the webhook was refused: ${reason}`, {
      retryHint: 'check that STRIPE_WEBHOOK_SECRET is the signing secret of this endpoint (or of `stripe listen`)',
    });
  }
}
