// What the HTTP surface needs from the composition root (deps.ts builds it): the config and the operations. Everything
// the routes do for a caller (fetching, accounts, billing, rate limits, readiness) is an operation.
import type { Config } from '../config.js';
import type { Operations } from '../operations/index.js';

export interface AppDeps {
  config: Config;
  operations: Operations;
}
