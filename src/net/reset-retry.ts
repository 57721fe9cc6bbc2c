// Retries an idempotent request once, on a fresh connection, when its connection closes before any response arrives:
// a site closing an idle keep-alive socket just as we reuse it (Node's 5 s default) is a race, not a failure.
import type { Dispatcher } from 'undici';

/** RFC 9110 §9.2.2: the methods a client may repeat on its own when the connection fails before the answer. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

// "other side closed" and the kernel's ways of saying the same; never a timeout, a TLS or a DNS failure.
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const isReset = (error: Error) => RESET_CODES.has((error as NodeJS.ErrnoException).code ?? '');

/**
 * An undici interceptor: `fresh` must not reuse connections (pipelining 0), so the second try cannot land on another
 * stale socket. Once the response has started (status line and headers in), a failure is passed on as it is: part of
 * the answer may already be with the caller, and repeating it would mix two answers.
 */
export function retryResetOnce(fresh: Dispatcher): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    if (!IDEMPOTENT.has(options.method.toUpperCase())) return dispatch(options, handler);
    let started = false;
    const firstTry: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, status, headers, socket) =>
        handler.onRequestUpgrade?.(controller, status, headers, socket),
      onResponseStart(controller, status, headers, message) {
        started = true;
        handler.onResponseStart?.(controller, status, headers, message);
      },
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError(controller, error) {
        if (started || !isReset(error)) return handler.onResponseError?.(controller, error);
        fresh.dispatch(options, handler);
      },
    };
    return dispatch(options, firstTry);
  };
}
