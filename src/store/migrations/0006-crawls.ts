// Migration 0006: crawls and their pages. A crawl's row holds its options and counts; a page's row is the crawl's
// record of one normalised URL (one row per URL: what makes a page read and billed once, by whichever worker), with
// its state and, once read, where its result sits in the cache.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function up(_dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('crawls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'integer', (c) => c.notNull())
      .addColumn('key_id', 'integer')
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('webhook', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('stop_reason', 'text')
      .addColumn('error', 'text')
      .addColumn('page_limit', 'integer', (c) => c.notNull())
      .addColumn('discovered', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('fetched', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('skipped_robots', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('finished', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('credits_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('crawls_account').on('crawls').columns(['account_id', 'created_at']).execute();
    await db.schema.createIndex('crawls_expiry').on('crawls').column('expires_at').execute();
    await db.schema
      .createTable('crawl_pages')
      .addColumn('crawl_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('depth', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint')
      .addColumn('seq', 'integer')
      .addColumn('code', 'text')
      .addColumn('status', 'integer')
      .addColumn('detail', 'text')
      .addColumn('result_key', 'text')
      .addPrimaryKeyConstraint('crawl_pages_key', ['crawl_id', 'url'])
      .execute();
    await db.schema.createIndex('crawl_pages_state').on('crawl_pages').columns(['crawl_id', 'state']).execute();
    await db.schema.createIndex('crawl_pages_seq').on('crawl_pages').columns(['crawl_id', 'seq']).execute();
  };
}
