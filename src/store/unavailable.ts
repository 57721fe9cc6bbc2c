// Tells a database that cannot be reached (down, restarting, refusing connections) from a bug in a query, so the HTTP
// layer answers 503 store_unavailable for the first and keeps 500 for the second.
import { AppError } from '../errors.js';

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** Postgres SQLSTATEs of a server shutting down or starting up (class 57P); class 08 is checked by prefix. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);
/** What node-postgres throws without a code when a connection ends or a connect attempt times out. */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i;

export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08')))
    return true;
  // An AggregateError (connecting to every address of localhost failed) carries the socket errors inside.
  if (error instanceof AggregateError && error.errors.some(isStoreUnavailable)) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/** cause: the driver's own error, kept for the log line of the request. */
export function storeUnavailable(cause?: unknown): AppError {
  return new AppError(
    'store_unavailable',
    'the account store is unavailable (the database cannot be reached); retry shortly',
    {
      retryHint: 'retry in a few seconds',
      headers: { 'Retry-After': '5' },
      cause,
    },
  );
}

/**
 * Postgres SQLSTATEs of a text value it cannot store: U+0000 (22021), or a character with no equivalent in the
 * server's encoding (22P05). SQLite stores both, so only a Postgres deployment meets them; the value came from a
 * request (a path, a field, a webhook's payload), so the answer is the caller's 400, not a 500.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

export function isUnstorableText(error: unknown): boolean {
  return error instanceof Error && UNSTORABLE_TEXT_CODES.has(String((error as { code?: unknown }).code));
}

export function unstorableText(cause: unknown): AppError {
  return new AppError(
    'bad_request',
    'a value in the request holds a character that cannot be stored (such as U+0000, the NUL character)',
    { cause },
  );
}
