// A database driver's error that escaped, as what an outage of the account store is everywhere else. Apart from
// failure.ts, which the MCP server and the CLI load at start: they must not load the store to describe a failure.
import type { AppError } from '../errors.js';
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable.js';

/**
 * An error that escaped as the database driver's own (a connection lost or refused) as what an outage of the account
 * store is everywhere else, 503 store_unavailable (src/store/outages.ts translates it where it can); else undefined.
 */
export function storeOutageOf(error: unknown): AppError | undefined {
  return isStoreUnavailable(error) ? storeUnavailable(error) : undefined;
}
