// A small key/value cache with per-entry lifetimes; one implementation per backend.

export interface CacheHit<T> {
  value: T;
  storedAt: number; // epoch ms
  expiresAt: number; // epoch ms
}

export interface Cache {
  /** The live entry, or null when absent or expired. */
  get<T>(key: string): Promise<CacheHit<T> | null>;
  set<T>(key: string, value: T, ttlSeconds: number): Promise<CacheHit<T>>;
  /** True when an entry was removed. */
  delete(key: string): Promise<boolean>;
  /** Throws when the backend cannot be reached (for /ready). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
