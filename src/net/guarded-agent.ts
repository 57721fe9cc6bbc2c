// The SSRF-safe undici dispatcher: every socket it opens goes only to an address the policy allows.
// This is the check that matters (it sees every hop and the resolved address); URL checks before it only fail faster.
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { BlockedAddressError, type AddressPolicy } from './guard.js';

export interface GuardedAgentOptions {
  timeoutMs: number;
  maxConnectionsPerOrigin?: number;
  /** False: one request per connection (the retry after a reset must not land on another stale socket). */
  keepAlive?: boolean;
}

export function createGuardedAgent(policy: AddressPolicy, opts: GuardedAgentOptions): Agent {
  const connect = buildConnector({ lookup: policy.lookup, timeout: opts.timeoutMs });
  return new Agent({
    connections: opts.maxConnectionsPerOrigin ?? null,
    ...(opts.keepAlive === false ? { pipelining: 0 } : {}),
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    connect(options, callback) {
      // net.connect never calls `lookup` for an IP literal, so literals are checked here.
      if (isIP(options.hostname) && !policy.allows(options.hostname)) {
        queueMicrotask(() => callback(new BlockedAddressError(options.hostname, policy.nameSetting), null));
        return;
      }
      connect(options, callback);
    },
  });
}
