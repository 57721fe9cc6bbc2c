// API keys: issued once in plaintext, stored as SHA-256, verified to a tagged result, revoked for good.
import type { Kysely } from 'kysely';
import type { Cache } from '../cache/types.js';
import type { Store } from '../store/db.js';
import type { Account, Database } from '../store/types.js';
import type { Clock } from './clock.js';
import { API_KEY_PREFIX, equalDigests, generateSecret, hashSecret, looksLikeApiKey } from './secrets.js';

/** last_used_at is written at most this often per key, so a busy key costs no write per request. */
export const LAST_USED_INTERVAL_MS = 60_000;

/**
 * How long a verified key is kept (by its hash) so that a busy key costs no database read per request. Revoking it,
 * or changing its account's plan, drops it at once from every process (the cache's deletes are coherent); this bounds
 * how long a copy missed by a delete that could not reach Redis lives.
 */
const VERIFIED_KEY_TTL_SECONDS = 30;

export interface KeyOut {
  id: number;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}

export interface IssuedKey {
  apiKey: string;
  key: KeyOut;
}

/** A new key, or why not: the account already holds `max` active keys (MAX_KEYS_PER_ACCOUNT). */
export type KeyIssue = ({ ok: true } & IssuedKey) | { ok: false; reason: 'too_many_keys'; max: number };

export type ApiKeyCheck =
  | { ok: true; account: Account; keyId: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' };

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** A verified key's row as kept: the key's columns and its account's. */
type KeyRow = Account & { key_id: number; key_hash: string; revoked_at: number | null; last_used_at: number | null };

/** `verified`: the cache of verified keys (memory, or Redis with coherent memory fronts in production). */
export function createKeys(deps: { store: Store; clock: Clock; maxKeysPerAccount: number; verified: Cache }) {
  const { store, clock, maxKeysPerAccount, verified } = deps;
  const lastWritten = new Map<number, number>();
  const checks = new WeakMap<KeyRow, ApiKeyCheck & { ok: true }>();

  /** Creates a key for an account; `db` may be a transaction so sign-up creates account and key together. */
  async function issueKey(db: Kysely<Database>, accountId: number, label: string | null): Promise<IssuedKey> {
    const apiKey = generateSecret(API_KEY_PREFIX);
    const createdAt = clock.now();
    const row = await db
      .insertInto('api_keys')
      .values({
        account_id: accountId,
        key_hash: hashSecret(apiKey),
        label,
        created_at: createdAt,
        last_used_at: null,
        revoked_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { apiKey, key: { id: row.id, label, created_at: iso(createdAt)!, last_used_at: null, revoked: false } };
  }

  /**
   * Another key for an existing account, unless it already holds maxKeysPerAccount active ones (revoked keys do not
   * count). The account row is locked first, so concurrent requests cannot pass the cap together.
   */
  async function addKey(accountId: number, label: string | null): Promise<KeyIssue> {
    return store.transaction(async (trx) => {
      await trx
        .selectFrom('accounts')
        .select('id')
        .where('id', '=', accountId)
        .$if(store.dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirstOrThrow();
      const row = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(row?.n ?? 0) >= maxKeysPerAccount)
        return { ok: false as const, reason: 'too_many_keys' as const, max: maxKeysPerAccount };
      return { ok: true as const, ...(await issueKey(trx, accountId, label)) };
    });
  }

  async function listKeys(accountId: number): Promise<KeyOut[]> {
    const rows = await store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      created_at: iso(r.created_at)!,
      last_used_at: iso(r.last_used_at),
      revoked: r.revoked_at !== null,
    }));
  }

  /** Revokes one of the account's keys; a key of another account is 'not_found', like one that does not exist. */
  async function revokeKey(
    accountId: number,
    keyId: number,
  ): Promise<{ ok: true; key: KeyOut } | { ok: false; reason: 'not_found' }> {
    const now = clock.now();
    await store.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .execute();
    const row = await store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return { ok: false, reason: 'not_found' };
    // Every process drops its copy before the revocation answers. Without Redis the others cannot hold one (while
    // their subscription is down they read the database), and this process's copy goes with the delete all the same.
    await verified.delete(row.key_hash).catch(() => undefined);
    return {
      ok: true,
      key: {
        id: row.id,
        label: row.label,
        created_at: iso(row.created_at)!,
        last_used_at: iso(row.last_used_at),
        revoked: true,
      },
    };
  }

  async function verifyApiKey(presented: string | undefined): Promise<ApiKeyCheck> {
    if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
    if (!looksLikeApiKey(presented)) return { ok: false, reason: 'malformed' };
    const keyHash = hashSecret(presented);
    const kept = await verified.get<KeyRow>(keyHash).catch(() => null);
    const row = kept?.value ?? (await lookUp(keyHash));
    // The lookup is by hash; the comparison that decides is constant-time all the same.
    if (!row || !equalDigests(row.key_hash, keyHash)) return { ok: false, reason: 'unknown' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (!kept) await verified.set(keyHash, row, VERIFIED_KEY_TTL_SECONDS).catch(() => undefined);
    await touch(row);
    return checkOf(row);
  }

  /** The check of a kept row, made once per row kept in memory rather than once per request. */
  function checkOf(row: KeyRow): ApiKeyCheck & { ok: true } {
    let check = checks.get(row);
    if (!check) {
      const { key_id, key_hash: _hash, revoked_at: _revoked, last_used_at: _used, ...account } = row;
      checks.set(row, (check = { ok: true, account, keyId: key_id }));
    }
    return check;
  }

  function lookUp(keyHash: string): Promise<KeyRow | undefined> {
    return store.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id as key_id',
        'api_keys.key_hash',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'accounts.id',
        'accounts.email',
        'accounts.plan',
        'accounts.balance_millis',
        'accounts.allowance_period',
        'accounts.allowance_used_millis',
        'accounts.created_at',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
  }

  /** Drops the kept copies of an account's keys (its plan changed), in every process. */
  async function forgetKeysOf(accountId: number): Promise<void> {
    const keys = await store.db.selectFrom('api_keys').select('key_hash').where('account_id', '=', accountId).execute();
    await Promise.all(keys.map((key) => verified.delete(key.key_hash)));
  }

  async function touch(row: KeyRow): Promise<void> {
    const keyId = row.key_id;
    const now = clock.now();
    const seen = Math.max(row.last_used_at ?? -Infinity, lastWritten.get(keyId) ?? -Infinity);
    if (now - seen < LAST_USED_INTERVAL_MS) return;
    lastWritten.set(keyId, now);
    if (lastWritten.size > 100_000) lastWritten.clear();
    await store.db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USED_INTERVAL_MS)]))
      .execute();
  }

  return { issueKey, addKey, listKeys, revokeKey, verifyApiKey, forgetKeysOf };
}

export type Keys = ReturnType<typeof createKeys>;
