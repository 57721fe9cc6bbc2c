// The Stripe SDK client from the config. STRIPE_API_BASE becomes the SDK's host, port and protocol, so the same code
// talks to Stripe, to stripe-mock or to the tests' stand-in; Stripe's failures become our error codes here.
import Stripe from 'stripe';
import { AppError } from '../errors.js';
import { API_VERSION } from '../version.js';

export function createStripeClient(secretKey: string, apiBase: string): Stripe {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
    protocol,
    appInfo: { name: 'Fetchdown', version: API_VERSION },
    telemetry: false,
    // The SDK retries connection failures and 409/5xx answers with the same idempotency key, so a retry is safe.
    maxNetworkRetries: 2,
    timeout: 20_000,
  });
}

/** Runs a Stripe API call; a refusal or an unreachable Stripe is a 502 billing_provider_error, never a 500. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    const reason =
      error instanceof Stripe.errors.StripeConnectionError
        ? 'Stripe could not be reached'
        : `Stripe answered ${error.statusCode ?? 'an error'}: ${error.message}`;
    throw new AppError('billing_provider_error', `could not ${what}: ${reason}`, { retryHint: 'retry in a minute' });
  }
}
