// Where a charge is kept from the moment its answer left until its ledger row is written: a process that dies in
// between leaves its charges here, and whoever settles its leases writes them (leases.ts). Rows are kept by lease.
// The copy that counts is a file per lease, appended before anything else happens (a killed process does not undo
// what the kernel has), in a folder of this process's own, which its successor on the same port reads at start. With
// Redis, a copy goes there too (at the end of the event loop's turn), so that any process can settle the leases of one
// whose machine is gone.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { NewLedgerRow } from '../../store/types.js';

export interface SpendJournal {
  /** Keeps a charged row of `leaseId`, synchronously: it outlives this process once this returns. */
  keep(leaseId: string, row: NewLedgerRow): void;
  /** Rows now in the ledger: the shared copy lets them go (the file goes with its lease). */
  forget(leaseId: string, requestIds: readonly string[]): void;
  /** Every row kept for a lease, written or not. */
  read(leaseId: string): Promise<NewLedgerRow[]>;
  /** The lease is settled: its rows go. */
  drop(leaseId: string): Promise<void>;
  /** The leases with rows in this process's folder: at start, those of the process before it. */
  kept(): string[];
}

const FILE = /^([\w-]+)\.jsonl$/;

export function createSpendJournal(options: { dir: string; redis?: Redis }): SpendJournal {
  const { dir, redis } = options;
  let made = false;
  /** Each lease's file, open for appending while the lease lives: a write per charge, not an open, write and close. */
  const files = new Map<string, number>();
  const fileOf = (leaseId: string) => join(dir, `${leaseId.replace(/[^\w-]/g, '')}.jsonl`);
  const keyOf = (leaseId: string) => `fetchdown:journal:${leaseId}`;

  /** Rows for the shared copy, by lease: sent once per turn of the event loop, a command per lease, not per charge. */
  let sharing = new Map<string, Record<string, string>>();
  function share(leaseId: string, requestId: string, line: string): void {
    if (sharing.size === 0) setImmediate(sendShared);
    let rows = sharing.get(leaseId);
    if (!rows) sharing.set(leaseId, (rows = {}));
    rows[requestId] = line;
  }
  function sendShared(): void {
    const batch = sharing;
    sharing = new Map();
    for (const [leaseId, rows] of batch) redis!.hset(keyOf(leaseId), rows).catch(() => undefined);
  }

  function readFile(leaseId: string): NewLedgerRow[] {
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
        // the torn last line of a crash mid-append
      }
    }
    return rows;
  }

  return {
    keep(leaseId, row) {
      if (!made) mkdirSync(dir, { recursive: true });
      made = true;
      const line = JSON.stringify(row);
      let fd = files.get(leaseId);
      if (fd === undefined) files.set(leaseId, (fd = openSync(fileOf(leaseId), 'a')));
      writeSync(fd, `${line}\n`);
      if (redis) share(leaseId, row.request_id!, line);
    },
    forget(leaseId, requestIds) {
      if (redis && requestIds.length > 0) redis.hdel(keyOf(leaseId), ...requestIds).catch(() => undefined);
    },
    async read(leaseId) {
      const shared = redis ? (await redis.hvals(keyOf(leaseId))).map((text) => JSON.parse(text) as NewLedgerRow) : [];
      return [...readFile(leaseId), ...shared];
    },
    async drop(leaseId) {
      const fd = files.get(leaseId);
      if (fd !== undefined) closeSync(fd);
      files.delete(leaseId);
      rmSync(fileOf(leaseId), { force: true });
      await redis?.del(keyOf(leaseId));
    },
    kept() {
      try {
        return readdirSync(dir).flatMap((name) => FILE.exec(name)?.[1] ?? []);
      } catch {
        return [];
      }
    },
  };
}
