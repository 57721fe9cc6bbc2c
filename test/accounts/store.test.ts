// The store and the credits ledger on every database: migrations, reservations, settlements, month rollover.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { createAccounts } from '../../src/accounts/index.js';
import { batchSizes } from '../../src/accounts/credits/index.js';
import { createSpendJournal } from '../../src/accounts/credits/journal.js';
import { createLedgerWriter } from '../../src/accounts/credits/ledger-writer.js';
import { ANONYMOUS, EVERYONE, readTotals } from '../../src/accounts/totals.js';
import { loadConfig } from '../../src/config.js';
import { priceOf } from '../../src/pricing.js';
import type { Mailer } from '../../src/mail/types.js';
import { createStore, type Store } from '../../src/store/db.js';
import { BILLING_OPERATIONS } from '../../src/store/types.js';
import { databaseEnv, DATABASES, createPostgresSchema } from '../helpers/databases.js';

type T = { after(fn: () => Promise<void> | void): unknown; skip(message?: string): void };

const silent = { info() {}, warn() {}, error() {} };
const nullMailer: Mailer = { kind: 'outbox', async send() {}, async close() {} };

async function openStore(t: T, backend: (typeof DATABASES)[number]): Promise<Store | null> {
  const env = await databaseEnv(t, backend);
  if (!env) return null;
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-store-'));
  const store = createStore({ databaseUrl: env.DATABASE_URL, dataDir });
  t.after(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await store.migrate();
  return store;
}

function setup(store: Store, at: { now: number }, env: Record<string, string> = {}) {
  const config = loadConfig({ FREE_MONTHLY_CREDITS: '5', STARTER_MONTHLY_CREDITS: '5', ...env });
  const clock = { now: () => at.now };
  const journal = createSpendJournal({ dir: mkdtempSync(join(tmpdir(), 'fetchdown-journal-')) });
  const accounts = createAccounts({ store, mailer: nullMailer, config, log: silent, clock, journal });
  return { accounts, credits: accounts.credits };
}

const NOV_10 = Date.UTC(2026, 10, 10, 12);

test('unbilled rows are inserted in power-of-two batches, so a few statements serve every flush', () => {
  assert.deepEqual(batchSizes(0), []);
  assert.deepEqual(batchSizes(1), [1]);
  assert.deepEqual(batchSizes(210), [128, 64, 16, 2]);
  assert.deepEqual(batchSizes(1234), [512, 512, 128, 64, 16, 2]);
  const flushes = Array.from({ length: 2000 }, (_, count) => ({ count, sizes: batchSizes(count) }));
  const sum = (sizes: number[]) => sizes.reduce((total, size) => total + size, 0);
  for (const { count, sizes } of flushes) assert.equal(sum(sizes), count);
  const used = [...new Set(flushes.flatMap((flush) => flush.sizes))].sort((a, b) => a - b);
  assert.deepEqual(used, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
});

for (const backend of DATABASES) {
  describe(`store on ${backend.name}`, () => {
    test('migrations are versioned and idempotent', async (t) => {
      const store = await openStore(t, backend);
      if (!store) return;
      await store.migrate();
      await Promise.all([store.migrate(), store.migrate()]);
      const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
      const names = tables.map((table) => table.name);
      for (const name of ['accounts', 'api_keys', 'magic_links', 'sessions', 'ledger', 'kysely_migration'])
        assert.ok(names.includes(name), name);
      const applied = await store.db
        .selectFrom('kysely_migration' as any)
        .select('name')
        .execute();
      assert.deepEqual(
        applied.map((r: any) => r.name),
        [
          '0001-accounts',
          '0002-billing',
          '0003-credit-leases',
          '0004-anonymous-usage',
          '0005-usage-totals',
          '0006-crawls',
          '0007-oauth',
          '0008-ledger-at-index',
        ],
      );
    });

    test('reserve and settle: allowance first, then balance, refunds, and month rollover', async (t) => {
      const store = await openStore(t, backend);
      if (!store) return;
      const at = { now: NOV_10 };
      const { accounts, credits } = setup(store, at);
      const signup = await accounts.signup('ledger@example.com', 'default');
      assert.ok(signup.created);
      const account = await store.db
        .selectFrom('accounts')
        .selectAll()
        .where('email', '=', 'ledger@example.com')
        .executeTakeFirstOrThrow();
      // A plan whose allowance counts credits (the free tier counts fetches: its own test below).
      await credits.changePlan(account.id, 'starter');

      // 5 credits of allowance: four 1-credit reservations, one settled as a 0.1 cache hit. Each answer is delivered.
      const settle = async (r: any, price: number, delivered = true) => {
        const settled = await credits.settle(r, {
          price: priceOf(price),
          key_id: null,
          operation: 'fetch',
          fetcher: 'html',
          cache_hit: 0,
          tokens: 1,
          status: 'ok',
          url_host: 'x',
          duration_ms: 1,
        });
        settled.keep(delivered);
        return settled.charged;
      };
      const a = await credits.reserve(account.id, priceOf(1000));
      assert.ok(a.ok);
      await settle(a.reservation, 100);
      for (let i = 0; i < 4; i++) {
        const r = await credits.reserve(account.id, priceOf(1000));
        assert.ok(r.ok, `reservation ${i}`);
        await settle(r.reservation, 1000);
      }
      const refused = await credits.reserve(account.id, priceOf(1000));
      assert.equal(refused.ok, false);
      assert.ok(
        !refused.ok && refused.allowanceLeftMillis === 900 && refused.balanceMillis === 0 && refused.plan === 'starter',
      );

      // A pack: the rest of the allowance is used first, then the balance.
      await accounts.addBalance(account.id, 2000);
      const mixed = await credits.reserve(account.id, priceOf(1000));
      assert.ok(mixed.ok);
      assert.deepEqual([mixed.reservation.fromAllowance, mixed.reservation.fromBalance], [900, 100]);
      // An answer that never reached its caller is not charged.
      const lost = await credits.reserve(account.id, priceOf(1000));
      assert.ok(lost.ok);
      assert.equal(await settle(lost.reservation, 1000, false), 1000);
      assert.equal((await credits.view(account.id)).balanceMillis, 2000);
      // A failure refunds both parts.
      const failed = await credits.settle(mixed.reservation, {
        price: priceOf(0),
        key_id: null,
        operation: 'fetch',
        fetcher: null,
        cache_hit: 0,
        tokens: 0,
        status: 'upstream_timeout',
        url_host: 'x',
        duration_ms: 1,
      });
      failed.keep(true);
      // The view counts what this process's lease holds unspent as the account's.
      let view = await credits.view(account.id);
      assert.equal(view.balanceMillis, 2000);
      assert.equal(view.allowance.used, 4100);

      // A dearer fetcher than reserved (browser, 5) takes the difference from what is left.
      const dear = await credits.reserve(account.id, priceOf(1000));
      assert.ok(dear.ok);
      await settle(dear.reservation, 5000);
      view = await credits.view(account.id);
      assert.equal(view.allowance.used, 5000);
      assert.equal(view.balanceMillis, 0, '0.9 from the allowance, 2 from the balance, the rest written off');
      const last = await store.db.selectFrom('ledger').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
      assert.equal(last.credits_millis, 2900);
      assert.equal(last.balance_millis, 2000);
      assert.ok(last.request_id, 'a billed row carries its request id');

      // Next month the allowance is whole again.
      at.now = Date.UTC(2026, 11, 1, 0, 0, 1);
      const december = await credits.reserve(account.id, priceOf(5000));
      assert.ok(december.ok);
      assert.equal(december.reservation.fromAllowance, 5000);
      assert.equal(december.reservation.lease.period, '2026-12');
      await settle(december.reservation, 1000);

      // Leases returned (as at shutdown), the account row itself is exact, and no lease is left.
      await credits.close();
      const row = await store.db
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.allowance_period, row.allowance_used_millis, row.balance_millis], ['2026-12', 1000, 0]);
      assert.deepEqual(await store.db.selectFrom('credit_leases').selectAll().execute(), []);
    });

    test('concurrent reservations never overspend', async (t) => {
      const store = await openStore(t, backend);
      if (!store) return;
      const { accounts, credits } = setup(store, { now: NOV_10 });
      await accounts.signup('race@example.com', 'default');
      const account = await store.db
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'race@example.com')
        .executeTakeFirstOrThrow();
      const results = await Promise.all(Array.from({ length: 40 }, () => credits.reserve(account.id, priceOf(1000))));
      assert.equal(results.filter((r) => r.ok).length, 5);
      await credits.close();
    });

    test('unbilled rows: written in batches of every size, each field as recorded', async (t) => {
      const store = await openStore(t, backend);
      if (!store) return;
      const { credits } = setup(store, { now: NOV_10 });
      // 1234 rows: two full batches of 512, then 210 as inserts of 128, 64, 16 and 2 rows; then 3 more (2 and 1).
      const row = (i: number) => ({
        account_id: null,
        key_id: null,
        operation: i % 2 ? 'fetch' : 'estimate',
        fetcher: i % 3 ? 'html' : null,
        cache_hit: i % 2,
        tokens: i,
        status: 'ok',
        url_host: i % 5 ? `host${i}.example` : null,
        duration_ms: i % 7,
        client_id: i % 4 ? null : `https://client${i}.example/oauth.json`,
      });
      for (let i = 0; i < 1234; i++) void credits.record(row(i));
      await credits.flush();
      for (let i = 1234; i < 1237; i++) await credits.record(row(i));
      await credits.flush();
      const rows = await store.db.selectFrom('ledger').selectAll().orderBy('tokens').execute();
      assert.equal(rows.length, 1237);
      for (const [i, stored] of rows.entries()) {
        const { id: _id, ...fields } = stored;
        assert.deepEqual(fields, {
          ...row(i),
          credits_millis: 0,
          balance_millis: 0,
          at: NOV_10,
          credited_millis: 0,
          item_key: null,
          request_id: null,
        });
      }
    });

    test('usage totals count each ledger row once, by any path, and match a scan of the ledger', async (t) => {
      const store = await openStore(t, backend);
      if (!store) return;
      const at = { now: NOV_10 };
      const { accounts, credits } = setup(store, at);
      await accounts.signup('totals@example.com', 'default');
      const account = await store.db
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'totals@example.com')
        .executeTakeFirstOrThrow();
      const details = (i: number) => ({
        key_id: null,
        operation: i % 3 ? 'fetch' : 'batch',
        fetcher: i % 4 ? 'html' : null,
        cache_hit: i % 2,
        tokens: 1,
        status: i % 5 ? 'ok' : 'upstream_timeout',
        url_host: null,
        duration_ms: 1,
      });
      for (let i = 0; i < 700; i++) void credits.record({ account_id: i % 2 ? account.id : null, ...details(i) });
      for (let i = 0; i < 4; i++) {
        at.now += 3_600_000 * i;
        const held = await credits.reserve(account.id, priceOf(1000));
        assert.ok(held.ok);
        const settled = await credits.settle(held.reservation, { price: priceOf(100 * (i + 1)), ...details(i) });
        settled.keep(true);
      }
      await credits.flush();
      // A flush offered again and a journal replayed: rows the ledger has are skipped, and not counted again.
      const billed = await store.db.selectFrom('ledger').selectAll().where('request_id', 'is not', null).execute();
      const again = billed.map(({ id: _id, ...row }) => row);
      const writer = createLedgerWriter(store);
      await writer.insert(store.db, again);
      assert.deepEqual(await writer.insertNew(store.db, again), []);
      await accounts.addBalance(account.id, 5000);

      const ledger = await store.db
        .selectFrom('ledger')
        .select((eb) => [
          'account_id',
          'operation',
          'status',
          eb.fn.countAll<number>().as('requests'),
          eb.fn.sum<number>('credits_millis').as('millis'),
        ])
        .where('operation', 'not in', BILLING_OPERATIONS)
        .groupBy(['account_id', 'operation', 'status'])
        .execute();
      const expected = (who: (row: (typeof ledger)[number]) => boolean) =>
        Object.fromEntries(
          ledger
            .filter(who)
            .map((row) => [`${row.operation}/${row.status}`, [Number(row.requests), Number(row.millis)]]),
        );
      const totals = async (accountId: number, who: (row: (typeof ledger)[number]) => boolean) => {
        const rows = await readTotals(store, [accountId], NOV_10 - 86_400_000);
        const sums: Record<string, number[]> = {};
        for (const row of rows) {
          const sum = (sums[`${row.operation}/${row.status}`] ??= [0, 0]);
          sum[0]! += row.requests;
          sum[1]! += row.creditsMillis;
        }
        assert.deepEqual(sums, expected(who));
        return rows.length;
      };
      assert.ok((await totals(account.id, (row) => row.account_id === account.id)) <= 4 * 2 * 2 * 2 * 2);
      await totals(ANONYMOUS, (row) => row.account_id === null);
      const everyone = await readTotals(store, [EVERYONE], NOV_10 - 86_400_000);
      assert.equal(
        everyone.reduce((sum, row) => sum + row.requests, 0),
        704,
      );
      await credits.close();
    });
  });
}

test('Postgres: stores in two schemas of one database migrate side by side', async (t) => {
  const env = await databaseEnv(
    t,
    DATABASES.find((d) => d.name === 'postgres')!,
  );
  if (!env) return;
  const other = await createPostgresSchema(t);
  const stores = [
    createStore({ databaseUrl: env.DATABASE_URL, dataDir: tmpdir() }),
    createStore({ databaseUrl: other, dataDir: tmpdir() }),
  ];
  t.after(() => Promise.all(stores.map((s) => s.close())));
  await Promise.all(stores.map((s) => s.migrate()));
  for (const store of stores) {
    await store.db
      .insertInto('accounts')
      .values({
        email: 'same@example.com',
        plan: 'free',
        balance_millis: 0,
        allowance_period: '',
        allowance_used_millis: 0,
        created_at: 1,
      })
      .execute();
  }
});

test('migrations succeed while other schemas of the database are created and dropped (tenants, parallel runs)', async (t) => {
  const postgres = DATABASES.find((d) => d.name === 'postgres')!;
  const env = await databaseEnv(t, postgres);
  if (!env) return;
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  t.after(() => admin.end());
  let stop = false;
  let dropped = 0;
  const churn = (async () => {
    for (let i = 0; !stop; i++, dropped++) {
      const schema = `fd_churn_${process.pid}_${i}`;
      await admin.query(`create schema ${schema}; create table ${schema}.t (a int)`);
      await admin.query(`drop schema ${schema} cascade`);
    }
  })();
  const failures: string[] = [];
  for (let i = 0; i < 10; i++) {
    const store = createStore({ databaseUrl: await createPostgresSchema(t), dataDir: tmpdir() });
    await store.migrate().catch((error: unknown) => failures.push(String(error)));
    await store.close();
  }
  stop = true;
  await churn;
  t.diagnostic(`${dropped} schemas dropped meanwhile`);
  assert.ok(dropped > 0);
  assert.deepEqual(failures, []);
});
