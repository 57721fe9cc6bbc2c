// Sign-up and sign-in: accounts with a first key, one-time magic links (15 minutes) and hashed session tokens.
// Sign-up on a known address sends a sign-in link instead of a key and takes the same time (not the same answer).
import type { Kysely } from 'kysely';
import type { MailMessage } from '../mail/types.js';
import type { Store } from '../store/db.js';
import type { Account, Database } from '../store/types.js';
import type { Clock } from './clock.js';
import type { Grants } from './credits/grants.js';
import type { Keys } from './keys.js';
import { apiKeyMessage, signInMessage } from './messages.js';
import { equalDigests, generateSecret, hashSecret } from './secrets.js';

export const MAGIC_LINK_TTL_MS = 15 * 60_000;
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;
/** At most this many sign-in links per address per link lifetime, so nobody can flood an inbox. */
const MAX_LINKS_PER_WINDOW = 5;

export type SignupResult = { created: true; apiKey: string; keyId: number } | { created: false };

export type LinkCheck =
  { ok: true; accountId: number } | { ok: false; reason: 'malformed' | 'unknown' | 'used' | 'expired' };

export type Redemption =
  | { ok: true; account: Account; sessionToken: string; expiresAt: number }
  | { ok: false; reason: 'malformed' | 'unknown' | 'used' | 'expired' };

export type SessionCheck =
  | { ok: true; account: Account; sessionId: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'expired' };

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const looksLikeToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

export function createLogin(deps: {
  store: Store;
  clock: Clock;
  keys: Keys;
  grants: Grants;
  publicBaseUrl: string;
  deliver(message: MailMessage, requestId: string | undefined): void;
}) {
  const { store, clock, keys, grants, deliver } = deps;
  const base = deps.publicBaseUrl.replace(/\/$/, '');

  async function recentLinks(db: Kysely<Database>, email: string, now: number): Promise<number> {
    const row = await db
      .selectFrom('magic_links')
      .innerJoin('accounts', 'accounts.id', 'magic_links.account_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('accounts.email', '=', email)
      .where('magic_links.created_at', '>', now - MAGIC_LINK_TTL_MS)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** usedAt: set for a link written only so a throttled sign-up costs what the others do; it can never be spent. */
  async function insertLink(
    db: Kysely<Database>,
    accountId: number,
    token: string,
    now: number,
    usedAt: number | null = null,
  ): Promise<void> {
    await db
      .insertInto('magic_links')
      .values({
        account_id: accountId,
        token_hash: hashSecret(token),
        created_at: now,
        expires_at: now + MAGIC_LINK_TTL_MS,
        used_at: usedAt,
      })
      .execute();
  }

  const linkFor = (token: string) => `${base}/auth/verify?token=${token}`;

  /**
   * Creates the account and its first key, or, for a known address, sends a sign-in link. The answer differs (a new
   * address gets its key), but the time does not: every branch runs the same statements (count the recent links,
   * insert the account or find it there, read it back, write one row holding one hashed secret) in one transaction
   * that writes, and mail leaves in the background.
   */
  async function signup(email: string, label: string, requestId?: string): Promise<SignupResult> {
    const address = normalizeEmail(email);
    const token = generateSecret();
    const now = clock.now();
    const outcome = await store.transaction(async (trx) => {
      const throttled = (await recentLinks(trx, address, now)) >= MAX_LINKS_PER_WINDOW;
      const created = await grants.openAccount(trx, address, now);
      const account = await trx
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', address)
        .executeTakeFirstOrThrow();
      if (created !== undefined) {
        const issued = await keys.issueKey(trx, account.id, label);
        return { created: true as const, apiKey: issued.apiKey, keyId: issued.key.id };
      }
      // Past the cap the link is written spent and never mailed: without its write this branch would commit faster.
      await insertLink(trx, account.id, token, now, throttled ? now : null);
      return { created: false as const, send: !throttled };
    });
    if (outcome.created) {
      deliver(apiKeyMessage(address, outcome.apiKey, base), requestId);
      return { created: true, apiKey: outcome.apiKey, keyId: outcome.keyId };
    }
    if (outcome.send) deliver(signInMessage(address, linkFor(token), MAGIC_LINK_TTL_MS / 60_000), requestId);
    return { created: false };
  }

  /** Sends a sign-in link when the address has an account; says nothing either way. */
  async function requestLogin(email: string, requestId?: string): Promise<void> {
    const address = normalizeEmail(email);
    const token = generateSecret();
    const now = clock.now();
    const send = await store.transaction(async (trx) => {
      // Both lookups run for every address, so a known one costs only its insert more.
      const account = await trx.selectFrom('accounts').select('id').where('email', '=', address).executeTakeFirst();
      const throttled = (await recentLinks(trx, address, now)) >= MAX_LINKS_PER_WINDOW;
      if (!account || throttled) return false;
      await insertLink(trx, account.id, token, now);
      return true;
    });
    if (send) deliver(signInMessage(address, linkFor(token), MAGIC_LINK_TTL_MS / 60_000), requestId);
  }

  async function explain(
    tokenHash: string,
    now: number,
  ): Promise<{ ok: false; reason: 'unknown' | 'used' | 'expired' }> {
    const row = await store.db
      .selectFrom('magic_links')
      .select(['token_hash', 'used_at', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row || !equalDigests(row.token_hash, tokenHash)) return { ok: false, reason: 'unknown' };
    if (row.used_at !== null) return { ok: false, reason: 'used' };
    if (row.expires_at <= now) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'unknown' };
  }

  /** Whether a link would work, without spending it (for the confirmation page). */
  async function checkMagicLink(token: string): Promise<LinkCheck> {
    if (!looksLikeToken(token)) return { ok: false, reason: 'malformed' };
    const tokenHash = hashSecret(token);
    const now = clock.now();
    const row = await store.db
      .selectFrom('magic_links')
      .select(['account_id', 'token_hash'])
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (row && equalDigests(row.token_hash, tokenHash)) return { ok: true, accountId: row.account_id };
    return explain(tokenHash, now);
  }

  /** Spends a link (once: the update that marks it used is the check) and opens a session. */
  async function redeemMagicLink(token: string): Promise<Redemption> {
    if (!looksLikeToken(token)) return { ok: false, reason: 'malformed' };
    const tokenHash = hashSecret(token);
    const now = clock.now();
    const spent = await store.db
      .updateTable('magic_links')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    if (!spent) return explain(tokenHash, now);
    const sessionToken = generateSecret();
    const expiresAt = now + SESSION_TTL_SECONDS * 1000;
    await store.db
      .insertInto('sessions')
      .values({
        account_id: spent.account_id,
        token_hash: hashSecret(sessionToken),
        created_at: now,
        expires_at: expiresAt,
      })
      .execute();
    const account = await store.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', spent.account_id)
      .executeTakeFirstOrThrow();
    return { ok: true, account, sessionToken, expiresAt };
  }

  async function verifySession(token: string | undefined): Promise<SessionCheck> {
    if (token === undefined || token === '') return { ok: false, reason: 'missing' };
    if (!looksLikeToken(token)) return { ok: false, reason: 'malformed' };
    const tokenHash = hashSecret(token);
    const row = await store.db
      .selectFrom('sessions')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .selectAll('accounts')
      .select(['sessions.id as session_id', 'sessions.token_hash', 'sessions.expires_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row || !equalDigests(row.token_hash, tokenHash)) return { ok: false, reason: 'unknown' };
    if (row.expires_at <= clock.now()) return { ok: false, reason: 'expired' };
    const { session_id, token_hash: _hash, expires_at: _expires, ...account } = row;
    return { ok: true, account, sessionId: session_id };
  }

  /** Logout: the session row goes, so the token stops working everywhere at once. */
  async function deleteSession(sessionId: number): Promise<void> {
    await store.db.deleteFrom('sessions').where('id', '=', sessionId).execute();
  }

  return { signup, requestLogin, checkMagicLink, redeemMagicLink, verifySession, deleteSession };
}

export type Login = ReturnType<typeof createLogin>;
