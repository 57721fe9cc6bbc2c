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

/**
 * Ledger operations that record a purchase, an operator's grant or a plan change rather than a metered request.
 */
export const BILLING_OPERATIONS = ['credit_pack', 'credit_grant', 'plan_change'] as const;

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
  /** Credits added to the prepaid balance (a credit pack bought); 0 on every other row. */
  credited_millis: Generated<number>;
  /** The pack or plan of a billing row (operations credit_pack, plan_change); null on every other row. */
  item_key: string | null;
  /** The metered operation a billed row settles: it is written once however often it is offered. */
  request_id: string | null;
  /** The OAuth client that spent (a connected application, migrations/0007-oauth.ts); null for API keys. */
  client_id: string | null;
}

/**
 * Credits a process took from an account in one transaction and spends in memory (src/accounts/credits/). What the
 * account row shows is what no lease holds; a lease's unspent part goes back when its holder returns it, or when it
 * has expired (its holder died) and another process reclaims it.
 */
export interface CreditLeasesTable {
  id: string;
  account_id: number;
  /** The process that holds it. */
  holder: string;
  /** The allowance month its allowance part belongs to. */
  period: string;
  allowance_millis: number;
  balance_millis: number;
  /** What the ledger rows written for it have charged, by source. */
  spent_allowance_millis: number;
  spent_balance_millis: number;
  /** Moved on by its holder's writes; a lease past it is reclaimed. */
  expires_at: number;
  /** Another process needs credit this lease holds: its holder returns it. */
  recalled_at: number | null;
}

/** The Stripe customer of an account (created at its first checkout) and its current subscription. */
export interface BillingCustomersTable {
  account_id: number;
  customer_id: string;
  subscription_id: string | null;
  subscription_status: string | null;
  /** When Stripe created the event whose subscription state is stored (epoch ms): older events do not overwrite it. */
  subscription_event_at: number | null;
  /** The first completed payment; before it the account has no billing portal. */
  paid_at: number | null;
  created_at: number;
}

/** Every Stripe event applied, recorded in the transaction of its effect: a redelivery finds its id and stops. */
export interface BillingEventsTable {
  event_id: string;
  type: string;
  account_id: number | null;
  /** What the event did: applied, ignored (and why), duplicate deliveries never get a row. */
  outcome: string;
  received_at: number;
}

/** Checkout sessions whose payment was applied: completed and async_payment_succeeded never both credit one. */
export interface BillingCheckoutsTable {
  session_id: string;
  account_id: number;
  mode: string;
  item_key: string;
  at: number;
}

/** Metered requests served without a key this month, per client address (SHA-256 of it, never the address). */
/** A crawl (migrations/0006-crawls.ts): options and webhook as JSON, counts kept as its pages finish. */
export interface CrawlsTable {
  id: string;
  account_id: number;
  key_id: number | null;
  /** The OAuth client that started it (its pages' ledger rows name it too); null for API keys. */
  client_id: string | null;
  url: string;
  options: string;
  webhook: string | null;
  status: string;
  stop_reason: string | null;
  error: string | null;
  page_limit: number;
  discovered: Generated<number>;
  fetched: Generated<number>;
  failed: Generated<number>;
  skipped_robots: Generated<number>;
  blocked: Generated<number>;
  /** Pages finished either way: the last `seq` given. */
  finished: Generated<number>;
  credits_millis: Generated<number>;
  bytes: Generated<number>;
  created_at: number;
  finished_at: number | null;
  expires_at: number;
}

/** One normalised URL of a crawl: queued, claimed (reading, until claimed_until), done, failed or skipped. */
export interface CrawlPagesTable {
  crawl_id: string;
  url: string;
  depth: number;
  state: string;
  claimed_until: number | null;
  /** Order of finishing, for the pages' cursor. */
  seq: number | null;
  code: string | null;
  status: number | null;
  detail: string | null;
  /** Where the page's result is in the cache. */
  result_key: string | null;
}

export interface AnonymousUsageTable {
  client_hash: string;
  period: string;
  requests: number;
}

/**
 * Requests and credits per account, hour and kind of request, kept by a trigger on ledger inserts
 * (migrations/0005-usage-totals.ts). account_id 0 counts callers without an account; -1 counts everyone.
 */
export interface UsageTotalsTable {
  account_id: number;
  /** Hours since the epoch (UTC). */
  hour: number;
  operation: string;
  /** '' when no fetcher ran. */
  fetcher: string;
  status: string;
  cache_hit: number;
  requests: number;
  credits_millis: number;
}

/** An OAuth client: registered here (RFC 7591) or read from its metadata document (its client_id is that URL). */
export interface OAuthClientsTable {
  client_id: string;
  /** The client's metadata as JSON (RFC 7591 names). */
  metadata: string;
  from_document: number;
  created_at: number;
  /** When a metadata document was last read (it is read again once older than the cache allows). */
  refreshed_at: number;
}

/** An authorization request: pending until the user consents, then a one-time code (stored as SHA-256). */
export interface OAuthAuthorizationsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** Space-separated. */
  scopes: string;
  resource: string;
  state: string | null;
  expires_at: number;
  account_id: number | null;
  grant_id: number | null;
  code_hash: string | null;
  code_used_at: number | null;
}

/** What a user consented to: a connected application, until revoked. */
export interface OAuthGrantsTable {
  id: Generated<number>;
  account_id: number;
  client_id: string;
  client_name: string;
  scopes: string;
  resource: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** An access or refresh token of a grant, as SHA-256; a refresh token is rotated (used once). */
export interface OAuthTokensTable {
  token_hash: string;
  grant_id: number;
  kind: 'access' | 'refresh';
  expires_at: number;
  rotated_at: number | null;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  magic_links: MagicLinksTable;
  sessions: SessionsTable;
  ledger: LedgerTable;
  usage_totals: UsageTotalsTable;
  billing_customers: BillingCustomersTable;
  billing_events: BillingEventsTable;
  billing_checkouts: BillingCheckoutsTable;
  credit_leases: CreditLeasesTable;
  anonymous_usage: AnonymousUsageTable;
  crawls: CrawlsTable;
  crawl_pages: CrawlPagesTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorizations: OAuthAuthorizationsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewLedgerRow = Insertable<LedgerTable>;
export type CreditLease = Selectable<CreditLeasesTable>;
