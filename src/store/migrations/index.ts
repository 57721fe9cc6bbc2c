// The versioned migrations, in order. Add a file NNNN-name.ts and list it here; applied ones never change.
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../db.js';
import * as m0001 from './0001-accounts.js';
import * as m0002 from './0002-billing.js';
import * as m0003 from './0003-credit-leases.js';
import * as m0004 from './0004-anonymous-usage.js';
import * as m0005 from './0005-usage-totals.js';
import * as m0006 from './0006-crawls.js';
import * as m0007 from './0007-oauth.js';
import * as m0008 from './0008-ledger-at-index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration's schema is not today's (0001-accounts)
type Step = { up(dialect: Dialect): (db: Kysely<any>) => Promise<void> };

const STEPS: Record<string, Step> = {
  '0001-accounts': m0001,
  '0002-billing': m0002,
  '0003-credit-leases': m0003,
  '0004-anonymous-usage': m0004,
  '0005-usage-totals': m0005,
  '0006-crawls': m0006,
  '0007-oauth': m0007,
  '0008-ledger-at-index': m0008,
};

export function listMigrations(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(Object.entries(STEPS).map(([name, step]) => [name, { up: step.up(dialect) }]));
}
