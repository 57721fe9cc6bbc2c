// API keys, magic-link and session tokens: 32 random bytes each, stored only as SHA-256 and compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'fd_live_';
const SECRET_BYTES = 32;

/** A new secret: the prefix plus 32 random bytes as base64url (43 characters). */
export function generateSecret(prefix = ''): string {
  return prefix + randomBytes(SECRET_BYTES).toString('base64url');
}

/** SHA-256 as hex: what the store keeps and looks secrets up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two strings of any length (each is hashed first, so lengths do not leak). */
export function equalSecrets(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * Constant-time equality of two hex SHA-256 digests (what the store keeps): no hashing again, as both are of one
 * length already.
 */
export function equalDigests(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
}

/** Shape check before any database work: a prefixed API key of the length we issue. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && /^[A-Za-z0-9_-]{43,128}$/.test(value.slice(API_KEY_PREFIX.length));
}
