// The tables of the account store, typed once for Kysely; both dialects hold the same shapes.
// Times are epoch milliseconds and amounts integer millicredits, so SQLite and Postgres agree without conversions.
import type { Generated, Insertable, Selectable } from 'kysely';

export type PlanKey = 'free' | 'starter' | 'pro' | 'scale';

export interface AccountsTable {
  id: Generated<number>;
  email: string;
  plan: PlanKey;
  /** Prepaid credits (packs): used after the monthly allowance, never expire. */
  balance_millis: number;
  /** The calendar month (YYYY-MM, UTC) that allowance_used_millis counts; an older month means nothing used yet. */
  allowance_period: string;
  allowance_used_millis: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** SHA-256 of the whole key, hex: the plaintext is never stored. */
  key_hash: string;
  label: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface MagicLinksTable {
  id: Generated<number>;
  account_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  token_hash: string;
  created_at: number;
  expires_at: number;
}

/** One row per metered operation: billed ones for accounts, unbilled ones for anonymous callers and failures. */
export interface LedgerTable {
  id: Generated<number>;
  account_id: number | null;
  key_id: number | null;
  operation: string;
  fetcher: string | null;
  /** What was charged, in millicredits (0 for anonymous callers and failures). */
  credits_millis: number;
  /** The part of credits_millis paid from the prepaid balance; the rest came from the monthly allowance. */
  balance_millis: number;
  cache_hit: number;
  tokens: number;
  /** 'ok' or the error code the operation ended with. */
  status: string;
  url_host: string | null;
  duration_ms: number;
  at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  magic_links: MagicLinksTable;
  sessions: SessionsTable;
  ledger: LedgerTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewLedgerRow = Insertable<LedgerTable>;
