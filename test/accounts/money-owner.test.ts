// One owner of money: only src/accounts/credits/ writes an account's plan, allowance and balance, the ledger and the
// credit leases. Any other module that writes them (through Kysely or in SQL text) fails this test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const OWNER = 'accounts/credits/';
/** Migrations create the tables; they change no account's money. */
const MIGRATIONS = 'store/migrations/';

const WRITES = [
  /(updateTable|insertInto|deleteFrom|replaceInto)\(\s*['"](accounts|ledger|credit_leases)['"]/,
  /\b(update|insert\s+into|delete\s+from)\s+(accounts|ledger|credit_leases)\b/i,
];

/** The lines of `source` that write money. */
function moneyWrites(source: string): string[] {
  return source.split('\n').filter((line) => WRITES.some((pattern) => pattern.test(line)));
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('the check finds a write of money in either form', () => {
  assert.equal(moneyWrites("await trx.updateTable('accounts').set({ balance_millis: 5 })").length, 1);
  assert.equal(moneyWrites('await db.insertInto("ledger").values(row)').length, 1);
  assert.equal(moneyWrites("sql`update accounts set plan = 'pro'`").length, 1);
  assert.equal(moneyWrites("const text = 'insert into credit_leases (id) values ($1)'").length, 1);
  assert.equal(moneyWrites("await db.selectFrom('accounts').selectAll()").length, 0);
});

test('only src/accounts/credits/ writes accounts, the ledger and credit leases', () => {
  const outside = files(SRC)
    .map((path) => relative(SRC, path))
    .filter((path) => !path.startsWith(OWNER) && !path.startsWith(MIGRATIONS))
    .flatMap((path) => moneyWrites(readFileSync(join(SRC, path), 'utf8')).map((line) => `${path}: ${line.trim()}`));
  assert.deepEqual(outside, []);
  assert.ok(files(join(SRC, OWNER)).some((path) => moneyWrites(readFileSync(path, 'utf8')).length > 0));
});
