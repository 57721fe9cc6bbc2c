// The one owner of an account's money. A paid request holds its price from a lease this process took of the
// account's credits (one transaction now and then, leases.ts), not from the account row: no row lock and no commit
// per request. Settling charges the lease in memory and keeps the charged row in a journal (journal.ts) before the
// answer goes; rows reach the ledger in batches, idempotent by request id, with the lease's spending. A lease goes
// back when idle, old, recalled by another process, or at shutdown; a dead process's lease is reclaimed after it
// expires, its journal written and the rest returned. Grants, packs and plan changes are here too (grants.ts).
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/db.js';
import type { Price } from '../../pricing.js';
import type { NewLedgerRow, PlanKey } from '../../store/types.js';
import { monthOf, type Clock } from '../clock.js';
import type { PlanTable } from '../plans.js';
import { createGrants } from './grants.js';
import type { SpendJournal } from './journal.js';
import { allowanceOf, createLeaseStore, LeaseGone, type QuotaShortfall } from './leases.js';
import { createLedgerWriter, RECORD_BATCH_ROWS } from './ledger-writer.js';

export { allowanceOf, type QuotaShortfall } from './leases.js';
export { batchSizes } from './ledger-writer.js';

/** How often this process writes its rows and its leases' spending (and so how stale another process's view is). */
const FLUSH_MS = 200;
/** A lease unused this long goes back. */
const IDLE_MS = 2000;
/** A lease is returned and a new one taken after this long, so one journal never grows for ever. */
const MAX_LIFE_MS = 60_000;
/** How long a request waits for other processes to return the credit it needs before it answers 402. */
const RECALL_WAIT_MS = 3000;
const RECALL_POLL_MS = 100;
/** The longest wait between two tries to write while the store cannot be reached. */
const MAX_RETRY_MS = 5000;

interface Lease {
  id: string;
  accountId: number;
  period: string;
  /** Its allowance pays a price's fetchMillis (the free tier counts fetches). */
  countsFetches: boolean;
  /** Taken from the account, by source. */
  allowance: number;
  balance: number;
  /** Held by requests in flight or spent, by source. */
  heldAllowance: number;
  heldBalance: number;
  /** What the lease row says was spent: the rows written for it. */
  writtenAllowance: number;
  writtenBalance: number;
  /** Requests holding part of it whose rows are not yet queued, and its queued rows not yet written. */
  inFlight: number;
  unwritten: number;
  lastUsed: number;
  createdAt: number;
  /** Until when the row's expiry, as last written, keeps it ours. */
  expiresAt: number;
  /** No new holds: recalled, old, of another month, or being returned. */
  closing: boolean;
  /** Reclaimed by another process while this one was cut off from the store. */
  gone: boolean;
}

export interface Reservation {
  lease: Lease;
  requestId: string;
  /** Held at the price's fetchMillis, from an allowance that counts fetches; else at its millis. */
  counted: boolean;
  fromAllowance: number;
  fromBalance: number;
}

export type ReserveResult = { ok: true; reservation: Reservation } | ({ ok: false } & QuotaShortfall);

/** What the work turned out to cost and what the ledger row says about it. */
export type Settlement = Omit<
  NewLedgerRow,
  'account_id' | 'credits_millis' | 'balance_millis' | 'at' | 'request_id' | 'credited_millis' | 'item_key'
> & { price: Price };

/** A row that charges nothing: anonymous callers, refusals. */
export type UnbilledRow = Omit<NewLedgerRow, 'at' | 'credits_millis' | 'balance_millis' | 'request_id'>;

/** What a ledger row takes from the caller's account of the work; the money, time and request id are the module's. */
type RowDetails = Pick<
  NewLedgerRow,
  'key_id' | 'operation' | 'fetcher' | 'cache_hit' | 'tokens' | 'status' | 'url_host' | 'duration_ms' | 'client_id'
>;

/** A ledger row, written out rather than spread: `{ ...row, more }` gave every row a map of its own in V8 (~3 µs). */
function ledgerRow(
  details: RowDetails,
  accountId: number | null,
  charge: { credits: number; balance: number; status: string; requestId: string | null; at: number },
): NewLedgerRow {
  return {
    account_id: accountId,
    key_id: details.key_id,
    operation: details.operation,
    fetcher: details.fetcher,
    credits_millis: charge.credits,
    balance_millis: charge.balance,
    cache_hit: details.cache_hit,
    tokens: details.tokens,
    status: charge.status,
    url_host: details.url_host,
    duration_ms: details.duration_ms,
    at: charge.at,
    credited_millis: 0,
    item_key: null,
    request_id: charge.requestId,
    client_id: details.client_id ?? null,
  };
}

const allowanceLeftOf = (lease: Lease) => lease.allowance - lease.heldAllowance;
const balanceLeftOf = (lease: Lease) => lease.balance - lease.heldBalance;
const leftOf = (lease: Lease) => allowanceLeftOf(lease) + balanceLeftOf(lease);
/** Whether an allowance that counts fetches pays `price`: while it covers the fetch count (else credits pay). */
const counts = (lease: Lease, price: Price) => lease.countsFetches && allowanceLeftOf(lease) >= price.fetchMillis;

/** What the lease lacks to hold `price`: a counting lease can take it from its allowance or from credits. */
function missing(lease: Lease, price: Price): number {
  if (!lease.countsFetches) return price.millis - leftOf(lease);
  return Math.min(price.fetchMillis - allowanceLeftOf(lease), price.millis - balanceLeftOf(lease));
}
const canHold = (lease: Lease, price: Price) => missing(lease, price) <= 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createCredits(deps: {
  store: Store;
  clock: Clock;
  plans: PlanTable;
  journal: SpendJournal;
  /** How long a lease stays its holder's without a write; a dead holder's lease is reclaimed after it. */
  leaseTtlMs?: number;
  onError?(error: unknown, context: string): void;
}) {
  const { store, clock, plans, journal } = deps;
  const ttl = deps.leaseTtlMs ?? 30_000;
  const onError = deps.onError ?? (() => undefined);
  const holder = randomUUID();
  let sequence = 0;
  /**
   * A request id unique across processes and in time order: the time, this process, a counter. The ledger's unique
   * index on it then grows at its end; random UUIDs put each row on a page of its own, 4 page writes a request on
   * SQLite (strace: 27,805 pwrite64 for 6,633 keyed requests, against 2,170 for 4,580 anonymous ones).
   */
  const holderPart = `-${holder.slice(0, 13)}-`;
  let stampedAt = -1;
  let stamp = '';
  const nextRequestId = () => {
    const now = clock.now();
    if (now !== stampedAt) stamp = (stampedAt = now).toString(36).padStart(9, '0') + holderPart;
    return stamp + (sequence++).toString(36);
  };
  const writer = createLedgerWriter(store);
  const leaseStore = createLeaseStore({ store, plans, writer });
  const grants = createGrants(store);

  /** The lease of each account that takes new holds; closing leases wait in `leases` until they are returned. */
  const open = new Map<number, Lease>();
  const leases = new Set<Lease>();
  let queued: { lease: Lease | null; row: NewLedgerRow }[] = [];
  /** Millicredits held per account in this and the last second: the size of its next lease. */
  const demand = new Map<number, { second: number; now: number; before: number }>();
  /** One lease transaction at a time per account in this process; holds wait for it and look again. */
  const growing = new Map<number, Promise<unknown>>();

  function noteDemand(accountId: number, millis: number): number {
    const second = Math.floor(clock.now() / 1000);
    let d = demand.get(accountId);
    if (!d || d.second < second - 1) d = { second, now: 0, before: 0 };
    else if (d.second < second) d = { second, now: 0, before: d.now };
    d.now += millis;
    if (demand.size >= 10_000) demand.clear();
    demand.set(accountId, d);
    return d.now + d.before;
  }

  function usable(lease: Lease | undefined, now: number): lease is Lease {
    if (!lease || lease.closing || lease.gone) return false;
    // Holds stop well before the row's expiry: another process may reclaim the lease after it.
    if (now > lease.expiresAt - ttl / 2 || now > lease.createdAt + MAX_LIFE_MS) lease.closing = true;
    return !lease.closing;
  }

  function hold(lease: Lease, price: Price): Reservation {
    const counted = counts(lease, price);
    const fromAllowance = counted
      ? price.fetchMillis
      : lease.countsFetches
        ? 0
        : Math.min(price.millis, allowanceLeftOf(lease));
    const fromBalance = counted ? 0 : price.millis - fromAllowance;
    lease.heldAllowance += fromAllowance;
    lease.heldBalance += fromBalance;
    lease.inFlight++;
    lease.lastUsed = clock.now();
    return { lease, requestId: nextRequestId(), counted, fromAllowance, fromBalance };
  }

  function serially<T>(accountId: number, work: () => Promise<T>): Promise<T> {
    const before = growing.get(accountId) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    growing.set(accountId, settled);
    void settled.then(() => growing.get(accountId) === settled && growing.delete(accountId));
    return run;
  }

  /**
   * Takes credit into `lease` (or a new lease of the account) so that it can hold `price`: at least what is missing,
   * up to the account's recent demand. Resolves with the lease, or the account's shortfall.
   */
  async function grow(
    accountId: number,
    price: Price,
    lease: Lease | undefined,
    want: number,
    partial = false,
  ): Promise<{ ok: true; lease: Lease } | ({ ok: false } & QuotaShortfall)> {
    const now = clock.now();
    const existing = lease && !lease.gone ? lease : undefined;
    const id = existing?.id ?? randomUUID();
    const need = existing ? missing(existing, price) : price.millis;
    const taken = await leaseStore.take({
      id,
      accountId,
      holder,
      need,
      needCounted: existing ? need : price.fetchMillis,
      want: Math.max(need, want),
      period: existing?.period,
      partial,
      now,
      expiresAt: now + ttl,
    });
    if (!taken.ok) return taken;
    const grown = existing ?? {
      id,
      accountId,
      period: taken.period,
      countsFetches: taken.countsFetches,
      allowance: 0,
      balance: 0,
      heldAllowance: 0,
      heldBalance: 0,
      writtenAllowance: 0,
      writtenBalance: 0,
      inFlight: 0,
      unwritten: 0,
      lastUsed: now,
      createdAt: now,
      expiresAt: now + ttl,
      closing: false,
      gone: false,
    };
    grown.allowance += taken.allowance;
    grown.balance += taken.balance;
    grown.expiresAt = now + ttl;
    if (!existing) {
      leases.add(grown);
      open.set(accountId, grown);
    }
    scheduleTick();
    return { ok: true, lease: grown };
  }

  /** Holds `price` of the account's credit for one operation. */
  async function reserve(accountId: number, price: Price): Promise<ReserveResult> {
    const want = noteDemand(accountId, price.millis);
    const deadline = clock.now() + RECALL_WAIT_MS;
    for (;;) {
      const lease = open.get(accountId);
      if (usable(lease, clock.now()) && canHold(lease, price)) return { ok: true, reservation: hold(lease, price) };
      const grown = await serially(accountId, async () => {
        const current = open.get(accountId);
        const now = clock.now();
        if (usable(current, now) && canHold(current, price)) return { ok: true as const };
        // A lease of another month takes no new holds: the new month's allowance goes into a new one.
        const keep = usable(current, now) && current.period === monthOf(now);
        if (current && !keep) current.closing = true;
        try {
          return await grow(accountId, price, keep ? current : undefined, want);
        } catch (error) {
          if (!(error instanceof LeaseGone)) throw error;
          if (current) current.gone = true;
          return grow(accountId, price, undefined, want);
        }
      });
      if (grown.ok) continue;
      // Other processes may hold the credit in their leases: they return it at their next write.
      if (clock.now() < deadline && (await leaseStore.recall(accountId, holder, clock.now()))) {
        await sleep(RECALL_POLL_MS);
        continue;
      }
      // What this process's lease has left is the account's too.
      const own = open.get(accountId);
      if (own && !own.gone) {
        grown.allowanceLeftMillis += own.allowance - own.heldAllowance;
        grown.balanceMillis += own.balance - own.heldBalance;
      }
      return grown;
    }
  }

  /**
   * Holds `extra` for a reservation (a dearer fetcher than it held for), from its own lease, at the rate it was held
   * at; `partial`: as much of it as there is.
   */
  async function topUp(
    reservation: Reservation,
    extra: Price,
    partial = false,
  ): Promise<{ ok: true } | ({ ok: false } & QuotaShortfall)> {
    const { lease } = reservation;
    const millis = reservation.counted ? extra.fetchMillis : extra.millis;
    if (leftOf(lease) < millis) {
      const need: Price = { millis, fetchMillis: millis };
      const grown = await serially(lease.accountId, async () =>
        leftOf(lease) >= millis || lease.gone
          ? { ok: true as const }
          : grow(lease.accountId, need, lease, noteDemand(lease.accountId, millis), partial),
      ).catch((error: unknown) => {
        if (error instanceof LeaseGone) lease.gone = true;
        throw error;
      });
      if (!grown.ok && !partial) return grown;
    }
    const more = Math.min(millis, leftOf(lease));
    const fromAllowance = Math.min(more, allowanceLeftOf(lease));
    lease.heldAllowance += fromAllowance;
    lease.heldBalance += more - fromAllowance;
    reservation.fromAllowance += fromAllowance;
    reservation.fromBalance += more - fromAllowance;
    return { ok: true };
  }

  /**
   * Turns a reservation into the real charge: less than held goes back to the lease; more (a joiner of a fetch that
   * needed a dearer fetcher) takes what the lease can give and writes off the rest, since the content is delivered.
   * Resolves with the millicredits charged and `keep`, to call once the answer has left (the row goes into the
   * journal and the queue) or cannot (the charge goes back and the row charges nothing).
   */
  async function settle(
    reservation: Reservation,
    settlement: Settlement,
  ): Promise<{ charged: number; keep(delivered: boolean): void }> {
    const { price } = settlement;
    const { lease } = reservation;
    const priceMillis = reservation.counted ? price.fetchMillis : price.millis;
    const held = reservation.fromAllowance + reservation.fromBalance;
    if (priceMillis > held) {
      const more = priceMillis - held;
      await topUp(reservation, { millis: more, fetchMillis: more }, true).catch(() => undefined);
    }
    const charged = Math.min(priceMillis, reservation.fromAllowance + reservation.fromBalance);
    const keepAllowance = Math.min(charged, reservation.fromAllowance);
    const keepBalance = charged - keepAllowance;
    lease.heldAllowance -= reservation.fromAllowance - keepAllowance;
    lease.heldBalance -= reservation.fromBalance - keepBalance;
    let kept = false;
    const keep = (delivered: boolean) => {
      if (kept) return;
      kept = true;
      if (!delivered) {
        lease.heldAllowance -= keepAllowance;
        lease.heldBalance -= keepBalance;
      }
      const row = ledgerRow(settlement, lease.accountId, {
        credits: delivered ? charged : 0,
        balance: delivered ? keepBalance : 0,
        status: delivered ? settlement.status : 'undelivered',
        requestId: reservation.requestId,
        at: clock.now(),
      });
      try {
        if (delivered && charged > 0) journal.keep(lease.id, row);
      } catch (error) {
        // The queued row is written all the same; only this process's death before then would lose it.
        onError(error, 'keeping a charge in the spend journal');
      }
      queued.push({ lease, row });
      lease.unwritten++;
      lease.inFlight--;
      lease.lastUsed = clock.now();
      scheduleTick();
    };
    return { charged, keep };
  }

  /** Queues a row that charges nothing; resolves when its batch is written if it filled one. */
  function record(row: UnbilledRow): Promise<void> | undefined {
    queued.push({
      lease: null,
      row: ledgerRow(row, row.account_id ?? null, {
        credits: 0,
        balance: 0,
        status: row.status,
        requestId: null,
        at: clock.now(),
      }),
    });
    if (queued.length >= RECORD_BATCH_ROWS) return flush();
    scheduleTick();
    return undefined;
  }

  let writing: Promise<void> = Promise.resolve();

  /** Writes every queued row and the spending of the leases they charged; rows that fail stay queued. */
  function flush(): Promise<void> {
    const write = writing.then(writeQueued);
    writing = write.catch(() => undefined);
    return write;
  }

  async function writeQueued(): Promise<void> {
    const batch = queued;
    queued = [];
    const now = clock.now();
    const spent = new Map<Lease, { allowance: number; balance: number; rows: NewLedgerRow[] }>();
    const plain: NewLedgerRow[] = [];
    for (const { lease, row } of batch) {
      if (!lease) {
        plain.push(row);
        continue;
      }
      let sum = spent.get(lease);
      if (!sum) spent.set(lease, (sum = { allowance: 0, balance: 0, rows: [] }));
      sum.allowance += Number(row.credits_millis) - Number(row.balance_millis);
      sum.balance += Number(row.balance_millis);
      sum.rows.push(row);
    }
    // Leases with nothing to write still move their expiry on while they are used.
    for (const lease of leases)
      if (!lease.gone && !spent.has(lease) && lease.expiresAt - now < (ttl * 2) / 3)
        spent.set(lease, { allowance: 0, balance: 0, rows: [] });
    if (spent.size === 0 && plain.length === 0) return;
    let goneNow: Lease[] = [];
    try {
      const recalled = await (spent.size === 0
        ? writer.insert(store.db, plain).then(() => [])
        : store.transaction(async (trx) => {
            const recalledNow: Lease[] = [];
            goneNow = [];
            for (const [lease, sum] of spent) {
              const updated = await trx
                .updateTable('credit_leases')
                .set({
                  spent_allowance_millis: lease.writtenAllowance + sum.allowance,
                  spent_balance_millis: lease.writtenBalance + sum.balance,
                  expires_at: now + ttl,
                })
                .where('id', '=', lease.id)
                .returning('recalled_at')
                .executeTakeFirst();
              if (!updated) {
                await leaseStore.chargeDirectly(trx, sum.rows, now);
                goneNow.push(lease);
              } else {
                if (updated.recalled_at !== null) recalledNow.push(lease);
                plain.push(...sum.rows);
              }
            }
            await writer.insert(trx, plain);
            return recalledNow;
          }));
      for (const lease of goneNow) lease.gone = true;
      for (const [lease, sum] of spent) {
        lease.unwritten -= sum.rows.length;
        lease.writtenAllowance += sum.allowance;
        lease.writtenBalance += sum.balance;
        if (!lease.gone) lease.expiresAt = now + ttl;
        journal.forget(
          lease.id,
          sum.rows.map((row) => row.request_id!),
        );
      }
      for (const lease of recalled) lease.closing = true;
    } catch (error) {
      queued = batch.concat(queued);
      throw error;
    }
  }

  /** Returns the leases that take no more holds and hold nothing in flight; all of them when `all`. */
  async function returnLeases(all = false): Promise<void> {
    const now = clock.now();
    for (const lease of leases) {
      if (lease.inFlight > 0 || lease.unwritten > 0) continue;
      if (all || now - lease.lastUsed > IDLE_MS || lease.gone) lease.closing = true;
      if (!lease.closing && usable(lease, now)) continue;
      if (open.get(lease.accountId) === lease) open.delete(lease.accountId);
      if (!lease.gone && !(await leaseStore.giveUp(lease.id, lease.accountId, now))) lease.gone = true;
      leases.delete(lease);
      await journal.drop(lease.id);
    }
  }

  let tick: NodeJS.Timeout | undefined;
  let stopped = false;
  /** Ticks failed in a row: the next waits longer (up to MAX_RETRY_MS) while the store is away. */
  let failedTicks = 0;

  /** While there are rows or leases, a timer writes the rows and returns the leases done with. */
  function scheduleTick(): void {
    if (tick || stopped) return;
    const delay = Math.min(FLUSH_MS * 2 ** failedTicks, MAX_RETRY_MS);
    tick = setTimeout(() => {
      void flush()
        .then(() => returnLeases())
        .then(
          () => (failedTicks = 0),
          (error: unknown) => {
            failedTicks++;
            onError(error, 'writing ledger rows and credit leases');
          },
        )
        .finally(() => {
          tick = undefined;
          if (queued.length > 0 || leases.size > 0) scheduleTick();
        });
    }, delay).unref();
  }

  /** Reclaims leases whose holders died: their journals are written, the rest goes back. */
  async function reclaimExpired(): Promise<number> {
    const now = clock.now();
    const expired = await store.db
      .selectFrom('credit_leases')
      .select(['id', 'account_id'])
      .where('expires_at', '<', now)
      .limit(100)
      .execute();
    let reclaimed = 0;
    for (const lease of expired) {
      if (await leaseStore.reclaim(lease, await journal.read(lease.id), now)) {
        reclaimed++;
        await journal.drop(lease.id);
      }
    }
    return reclaimed;
  }

  /** Settles the leases whose rows the process before this one (same folder) left in the journal. */
  async function recoverJournal(): Promise<void> {
    const now = clock.now();
    const mine = new Set([...leases].map((lease) => lease.id));
    for (const id of journal.kept()) {
      if (mine.has(id)) continue;
      await leaseStore.settleJournal(id, await journal.read(id), now);
      await journal.drop(id);
    }
  }

  let recovered = false;
  const sweep = () =>
    void (async () => {
      if (!recovered) await recoverJournal();
      recovered = true;
      await reclaimExpired();
    })().catch((error: unknown) => onError(error, 'reclaiming credit leases'));
  // Soon after start (the store is migrated by then), then every half lease.
  const firstSweep = setTimeout(sweep, 1000).unref();
  const sweeper = setInterval(sweep, ttl / 2).unref();

  /**
   * The account's allowance and balance as a caller sees them: the row plus what leases hold unspent, as of each
   * holder's last write (this process's rows are written first).
   */
  async function view(accountId: number) {
    await flush();
    const account = await store.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const allowance = allowanceOf(account, plans, clock.now());
    const unspent = await leaseStore.unspent(accountId, allowance.period);
    const used = Math.max(0, allowance.used - unspent.allowance);
    return {
      account,
      balanceMillis: account.balance_millis + unspent.balance,
      allowance: { ...allowance, used, left: Math.max(0, allowance.monthly - used) },
    };
  }

  /** Whether the account could pay `price` now (a read, not a hold). */
  async function canAfford(accountId: number, price: Price): Promise<{ ok: true } | ({ ok: false } & QuotaShortfall)> {
    const { account, allowance, balanceMillis } = await view(accountId);
    const affords = allowance.countsFetches
      ? allowance.left >= price.fetchMillis || balanceMillis >= price.millis
      : allowance.left + balanceMillis >= price.millis;
    if (affords) return { ok: true };
    return {
      ok: false,
      plan: account.plan,
      countsFetches: allowance.countsFetches,
      monthlyMillis: allowance.monthly,
      allowanceLeftMillis: allowance.left,
      balanceMillis,
      renewsAt: allowance.renewsAt,
    };
  }

  /** An operator's grant of prepaid credits, with its ledger row. */
  async function addBalance(accountId: number, millis: number): Promise<void> {
    await store.transaction((trx) =>
      grants.addCredits(trx, { accountId, millis, operation: 'credit_grant', itemKey: 'grant', at: clock.now() }),
    );
  }

  /** An operator's move of the account to `plan`, with its ledger row. */
  async function changePlan(accountId: number, plan: PlanKey): Promise<void> {
    await store.transaction((trx) => grants.changePlan(trx, accountId, plan, clock.now()));
    planChanged(accountId);
  }

  /** After a plan change: this process's lease, taken under the old plan, takes no more holds (others: recalled). */
  function planChanged(accountId: number): void {
    const lease = open.get(accountId);
    if (lease) lease.closing = true;
  }

  /** At shutdown, once requests are done: every row written, every lease returned. */
  async function close(): Promise<void> {
    stopped = true;
    clearTimeout(tick);
    clearTimeout(firstSweep);
    clearInterval(sweeper);
    await flush();
    await returnLeases(true);
  }

  return {
    reserve,
    topUp,
    settle,
    record,
    flush,
    view,
    canAfford,
    reclaimExpired,
    recoverJournal,
    addBalance,
    changePlan,
    planChanged,
    /** For the billing webhook: a pack bought, a plan changed, inside its transaction. */
    grants,
    close,
  };
}

export type Credits = ReturnType<typeof createCredits>;
