// Migration 0002: billing through Stripe. Each account's Stripe customer and subscription, the ids of the events
// and checkout sessions already applied (so a redelivery changes nothing), and the ledger's columns for purchases.
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.js';

export function up(_dialect: Dialect) {
  // A migration's schema is not today's (0001-accounts.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async (db: Kysely<any>): Promise<void> => {
    await db.schema
      .createTable('billing_customers')
      .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('customer_id', 'text', (c) => c.notNull().unique())
      .addColumn('subscription_id', 'text')
      .addColumn('subscription_status', 'text')
      .addColumn('subscription_event_at', 'bigint')
      .addColumn('paid_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('billing_events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('account_id', 'integer')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('billing_checkouts')
      .addColumn('session_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('item_key', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .alterTable('ledger')
      .addColumn('credited_millis', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('ledger').addColumn('item_key', 'text').execute();
  };
}
