// The request a piece of work belongs to, for loggers that are not the request's own (the accounts service's): work
// started while handling a request, including mail sent and ledger rows written after it, logs its request id.
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<{ reqId: string }>();

/** Runs `next` (and everything it starts) as part of request `reqId`. */
export function runInRequest(reqId: string, next: () => void): void {
  storage.run({ reqId }, next);
}

/** Fields for a log line: the current request's id, if there is one (a pino mixin). */
export function requestFields(): { reqId?: string } {
  return storage.getStore() ?? {};
}
