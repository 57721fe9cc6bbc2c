// Where a charge is kept from the moment it is answered until its ledger row is written: a process that dies in
// between leaves its charges here, and whoever reclaims its leases writes them (leases.ts). Rows are kept by lease.
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { NewLedgerRow } from '../../store/types.js';

export interface SpendJournal {
  /** Keeps a charged row of `leaseId`; resolves once it outlives this process. */
  keep(leaseId: string, row: NewLedgerRow): Promise<void>;
  /** Rows now in the ledger: no longer needed. */
  forget(leaseId: string, requestIds: readonly string[]): void;
  /** Every row kept for a lease, written or not. */
  read(leaseId: string): Promise<NewLedgerRow[]>;
  /** The lease is settled: its rows go. */
  drop(leaseId: string): Promise<void>;
}

/**
 * One file per lease under `dir`, a JSON row per line. The append returns once the kernel has the bytes, which a
 * killed process does not undo (a machine that loses power can: the embedded default is one machine's). A line cut
 * short by a crash mid-append is skipped: its answer was never sent.
 */
export function createFileJournal(dir: string): SpendJournal {
  let made = false;
  const fileOf = (leaseId: string) => join(dir, `${leaseId.replace(/[^\w-]/g, '')}.jsonl`);
  return {
    async keep(leaseId, row) {
      if (!made) mkdirSync(dir, { recursive: true });
      made = true;
      appendFileSync(fileOf(leaseId), `${JSON.stringify(row)}\n`);
    },
    // Lines stay until the lease goes: a row written twice is written once (ledger-writer.ts).
    forget() {},
    async read(leaseId) {
      let text: string;
      try {
        text = readFileSync(fileOf(leaseId), 'utf8');
      } catch {
        return [];
      }
      const rows: NewLedgerRow[] = [];
      for (const line of text.split('\n')) {
        try {
          if (line) rows.push(JSON.parse(line) as NewLedgerRow);
        } catch {
          // the torn last line of a crash
        }
      }
      return rows;
    },
    async drop(leaseId) {
      rmSync(fileOf(leaseId), { force: true });
    },
  };
}

/**
 * A Redis hash per lease (request id → row), shared by every process, so any one can reclaim a dead one's leases.
 * While Redis cannot be reached, rows go to `fallback` (this machine's files): the process that wrote them is alive
 * and writes them to the ledger itself; only its death in the same outage would leave them on this machine.
 */
export function createRedisJournal(redis: Redis, fallback: SpendJournal): SpendJournal {
  const keyOf = (leaseId: string) => `fetchdown:journal:${leaseId}`;
  return {
    async keep(leaseId, row) {
      try {
        await redis.hset(keyOf(leaseId), row.request_id!, JSON.stringify(row));
      } catch {
        await fallback.keep(leaseId, row);
      }
    },
    forget(leaseId, requestIds) {
      if (requestIds.length > 0) redis.hdel(keyOf(leaseId), ...requestIds).catch(() => undefined);
    },
    async read(leaseId) {
      const shared = (await redis.hvals(keyOf(leaseId))).map((text) => JSON.parse(text) as NewLedgerRow);
      return [...shared, ...(await fallback.read(leaseId))];
    },
    async drop(leaseId) {
      await Promise.all([redis.del(keyOf(leaseId)), fallback.drop(leaseId)]);
    },
  };
}
