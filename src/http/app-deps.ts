// What the HTTP surface needs from the composition root (deps.ts builds it): the config, the operations, and the
// adapters it probes or counts with directly (readiness, migrations, rate limits). Billing is an operation.
import type { Cache } from '../cache/types.js';
import type { Config } from '../config.js';
import type { Operations } from '../operations/index.js';
import type { Store } from '../store/db.js';

export interface AppDeps {
  config: Config;
  operations: Operations;
  store: Store;
  cache: Cache;
}
