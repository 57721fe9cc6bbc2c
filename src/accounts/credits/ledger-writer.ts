// Ledger rows written many to a statement. A row with a request id is written once however often it is offered (a
// flush tried again, a dead process's journal replayed): the insert skips a request id the ledger already has.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Store } from '../../store/db.js';
import type { Database, NewLedgerRow } from '../../store/types.js';

export const RECORD_BATCH_ROWS = 512;

/** Every column a batch writes, in the order of its parameters. */
const LEDGER_COLUMNS = [
  'account_id',
  'key_id',
  'operation',
  'fetcher',
  'credits_millis',
  'balance_millis',
  'cache_hit',
  'tokens',
  'status',
  'url_host',
  'duration_ms',
  'at',
  'credited_millis',
  'item_key',
  'request_id',
  'client_id',
] as const satisfies readonly (keyof NewLedgerRow)[];
// A ledger column added later must be listed above, or batches would leave it out: until it is, this does not compile.
const _everyLedgerColumn: Record<Exclude<keyof NewLedgerRow, (typeof LEDGER_COLUMNS)[number] | 'id'>, never> = {};

/** The Postgres type of each ledger column, for the arrays its batch insert takes. */
const POSTGRES_TYPES: Record<(typeof LEDGER_COLUMNS)[number], string> = {
  account_id: 'integer',
  key_id: 'integer',
  operation: 'text',
  fetcher: 'text',
  credits_millis: 'bigint',
  balance_millis: 'bigint',
  cache_hit: 'integer',
  tokens: 'integer',
  status: 'text',
  url_host: 'text',
  duration_ms: 'integer',
  at: 'bigint',
  credited_millis: 'bigint',
  item_key: 'text',
  request_id: 'text',
  client_id: 'text',
};

/**
 * A batch on Postgres: one array per column, unnested into rows. Against one VALUES row of parameters per ledger row,
 * it halves Postgres's CPU per row (9.1 → 4.4 µs) and the API's (3.2 → 2.2 µs), since the server parses a statement
 * of one parameter per column instead of thousands (docs/benchmarks-log.md, "The production set-up").
 */
const POSTGRES_ARRAYS_INSERT =
  `insert into ledger (${LEDGER_COLUMNS.join(', ')}) ` +
  `select * from unnest(${LEDGER_COLUMNS.map((column, i) => `$${i + 1}::${POSTGRES_TYPES[column]}[]`).join(', ')}) ` +
  'on conflict (request_id) do nothing';

/**
 * How `count` rows are cut into inserts on SQLite: powers of two up to RECORD_BATCH_ROWS, largest first, so ten
 * statements (1 to 512 rows) serve every flush. A flush of any other size compiled and prepared a statement of its
 * own, on the event loop: 2–19 ms each for 200–500 rows, against 0.6–1.5 ms for a size seen before.
 */
export function batchSizes(count: number): number[] {
  const sizes: number[] = [];
  let left = count;
  while (left > 0) {
    const size = Math.min(RECORD_BATCH_ROWS, 2 ** Math.floor(Math.log2(left)));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

export function createLedgerWriter(store: Store) {
  // The insert's SQL for a number of rows, compiled once per size (batchSizes keeps them few): Kysely's builder took
  // ~2 µs a row to compile the same statement for every batch.
  const insertSql = new Map<number, string>();

  function sqliteInsert(count: number): string {
    let text = insertSql.get(count);
    if (text === undefined) {
      const placeholders = Object.fromEntries(LEDGER_COLUMNS.map((column) => [column, null])) as NewLedgerRow;
      text = store.db
        .insertInto('ledger')
        .values(Array.from({ length: count }, () => placeholders))
        .onConflict((conflict) => conflict.column('request_id').doNothing())
        .compile().sql;
      insertSql.set(count, text);
    }
    return text;
  }

  /** Writes `rows` through `db` (the store, or a transaction's handle). */
  async function insert(db: Kysely<Database>, rows: readonly NewLedgerRow[]): Promise<void> {
    if (store.dialect === 'postgres') {
      for (let from = 0; from < rows.length; from += RECORD_BATCH_ROWS) {
        const batch = rows.slice(from, from + RECORD_BATCH_ROWS);
        const parameters = LEDGER_COLUMNS.map((column) => batch.map((row) => row[column] ?? null));
        await db.executeQuery(CompiledQuery.raw(POSTGRES_ARRAYS_INSERT, parameters));
      }
      return;
    }
    let from = 0;
    for (const size of batchSizes(rows.length)) {
      const parameters: unknown[] = [];
      for (const row of rows.slice(from, (from += size)))
        for (const column of LEDGER_COLUMNS) parameters.push(row[column] ?? null);
      await db.executeQuery(CompiledQuery.raw(sqliteInsert(size), parameters));
    }
  }

  /** Writes `rows` one by one and says which were new: a dead process's journal, where each may be written already. */
  async function insertNew(db: Kysely<Database>, rows: readonly NewLedgerRow[]): Promise<NewLedgerRow[]> {
    const written: NewLedgerRow[] = [];
    for (const row of rows) {
      const inserted = await db
        .insertInto('ledger')
        .values(row)
        .onConflict((conflict) => conflict.column('request_id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) written.push(row);
    }
    return written;
  }

  return { insert, insertNew };
}

export type LedgerWriter = ReturnType<typeof createLedgerWriter>;
