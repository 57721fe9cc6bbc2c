// A crawl's state in the account store: the crawl's row (options, status, counts) and a row per normalised URL. The
// rows, not the job engine, say what is done: a page is claimed before it is read and finished once, so a job run
// twice (a stalled job handed to another worker, a restart) neither reads a page into the results twice nor bills it
// twice. Counts move in the same statement as the page's state.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import type { Database } from '../store/types.js';
import { pathKey } from './urls.js';

export type CrawlRow = Awaited<ReturnType<typeof getRow>>;
export type FinishedState = 'done' | 'failed' | 'skipped_robots' | 'blocked' | 'skipped';
/** The counter each finished state moves ('skipped': a page left unread once the crawl stopped). */
const COUNTER = {
  done: 'fetched',
  failed: 'failed',
  skipped_robots: 'skipped_robots',
  blocked: 'blocked',
  skipped: null,
} as const;

/** The crawl's URLs starting with `prefix`, compared as written (LIKE would read `_` and `%` in a URL as patterns). */
async function countWithPrefix(db: Kysely<Database>, id: string, prefix: string): Promise<number> {
  const row = await db
    .selectFrom('crawl_pages')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('crawl_id', '=', id)
    .where(sql<string>`substr(url, 1, ${prefix.length})`, '=', prefix)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function getRow(db: Kysely<Database>, id: string) {
  return db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface NewCrawl {
  accountId: number;
  keyId: number | null;
  clientId: string | null;
  url: string;
  options: object;
  webhook: object | null;
  pageLimit: number;
  now: number;
  retentionMs: number;
}

export function createCrawlStore(store: Store) {
  const { db } = store;
  return {
    async create(crawl: NewCrawl): Promise<string> {
      const id = `cr_${randomBytes(12).toString('hex')}`;
      await db
        .insertInto('crawls')
        .values({
          id,
          account_id: crawl.accountId,
          key_id: crawl.keyId,
          client_id: crawl.clientId,
          url: crawl.url,
          options: JSON.stringify(crawl.options),
          webhook: crawl.webhook ? JSON.stringify(crawl.webhook) : null,
          status: 'queued',
          stop_reason: null,
          error: null,
          page_limit: crawl.pageLimit,
          created_at: crawl.now,
          finished_at: null,
          expires_at: crawl.now + crawl.retentionMs,
        })
        .execute();
      return id;
    },

    get: (id: string) => getRow(db, id),

    /** The account's crawls, newest first. */
    list: (accountId: number, limit: number) =>
      db
        .selectFrom('crawls')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .limit(limit)
        .execute(),

    /** Moves a crawl from one status to another; false when it was not in `from` (another worker moved it first). */
    async setStatus(
      id: string,
      from: readonly string[],
      to: string,
      details: { stopReason?: string; error?: string; now?: number } = {},
    ): Promise<boolean> {
      const result = await db
        .updateTable('crawls')
        .set({
          status: to,
          ...(details.stopReason ? { stop_reason: details.stopReason } : {}),
          ...(details.error ? { error: details.error } : {}),
          ...(details.now ? { finished_at: details.now } : {}),
        })
        .where('id', '=', id)
        .where('status', 'in', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Stops a running crawl from taking pages, for `reason` (the first reason stays): it starts and discovers none, and
     * turns completed when the pages being read have finished. False when it was not running or had stopped already.
     */
    async stopTaking(id: string, reason: string): Promise<boolean> {
      const result = await db
        .updateTable('crawls')
        .set({ stop_reason: reason })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('stop_reason', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Adds the URLs the crawl has not seen, while it runs and has room under its page limit and, for a URL with a
     * query, while its path has fewer than `maxQueryVariants` URLs with a query (a path with endless query strings is
     * a trap: /search?q=1, ?q=2 …). The rows are the count every worker shares, read in the same transaction. Says
     * which were added (to queue as jobs) and whether the limit turned some away.
     */
    async addPages(id: string, pages: readonly { url: string; depth: number }[], maxQueryVariants: number) {
      if (pages.length === 0) return { added: [] as { url: string; depth: number }[], full: false };
      return store.transaction(async (trx) => {
        const crawl = await trx
          .selectFrom('crawls')
          .select(['discovered', 'page_limit', 'status', 'stop_reason'])
          .where('id', '=', id)
          .$if(store.dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirstOrThrow();
        // A crawl that stopped or is stopping (cancelled, out of credits, done) discovers nothing more.
        if ((crawl.status !== 'queued' && crawl.status !== 'running') || crawl.stop_reason !== null)
          return { added: [], full: false };
        const room = crawl.page_limit - crawl.discovered;
        const seen = new Set(
          (
            await trx
              .selectFrom('crawl_pages')
              .select('url')
              .where('crawl_id', '=', id)
              .where(
                'url',
                'in',
                pages.map((page) => page.url),
              )
              .execute()
          ).map((row) => row.url),
        );
        const fresh = [...new Map(pages.filter((page) => !seen.has(page.url)).map((p) => [p.url, p])).values()];
        const variantsLeft = new Map<string, number>();
        const added: { url: string; depth: number }[] = [];
        for (const page of fresh) {
          if (added.length >= room) break;
          if (new URL(page.url).search !== '') {
            const key = `${pathKey(page.url)}?`;
            const left = variantsLeft.get(key) ?? maxQueryVariants - (await countWithPrefix(trx, id, key));
            if (left <= 0) continue;
            variantsLeft.set(key, left - 1);
          }
          added.push(page);
        }
        if (added.length > 0) {
          await trx
            .insertInto('crawl_pages')
            .values(added.map((page) => ({ crawl_id: id, url: page.url, depth: page.depth, state: 'queued' })))
            .execute();
          await trx
            .updateTable('crawls')
            .set({ discovered: sql`discovered + ${added.length}` })
            .where('id', '=', id)
            .execute();
        }
        return { added, full: added.length >= room && added.length < fresh.length };
      });
    },

    /**
     * Claims a queued page (or one whose claim ran out: its worker died) until `until`; the page and its depth when
     * claimed, else what stops it (already finished, or claimed by a live worker until when).
     */
    async claim(id: string, url: string, now: number, until: number) {
      const claimed = await db
        .updateTable('crawl_pages')
        .set({ state: 'claimed', claimed_until: until })
        .where('crawl_id', '=', id)
        .where('url', '=', url)
        .where((eb) =>
          eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'claimed'), eb('claimed_until', '<', now)])]),
        )
        .returning(['depth'])
        .executeTakeFirst();
      if (claimed) return { claimed: true as const, depth: claimed.depth };
      const row = await db
        .selectFrom('crawl_pages')
        .select(['state', 'claimed_until'])
        .where('crawl_id', '=', id)
        .where('url', '=', url)
        .executeTakeFirst();
      return { claimed: false as const, busyUntil: row?.state === 'claimed' ? row.claimed_until : null };
    },

    /** Finishes a claimed page once, with its counter, credits and bytes; false if it was finished already. */
    async finish(
      id: string,
      url: string,
      state: FinishedState,
      details: { code?: string; status?: number; detail?: string; resultKey?: string; millis?: number; bytes?: number },
    ): Promise<boolean> {
      return store.transaction(async (trx) => {
        const crawl = await trx
          .selectFrom('crawls')
          .select('finished')
          .where('id', '=', id)
          .$if(store.dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirstOrThrow();
        const page = await trx
          .updateTable('crawl_pages')
          .set({
            state,
            claimed_until: null,
            seq: crawl.finished + 1,
            code: details.code ?? null,
            status: details.status ?? null,
            detail: details.detail ?? null,
            result_key: details.resultKey ?? null,
          })
          .where('crawl_id', '=', id)
          .where('url', '=', url)
          .where('state', 'in', ['queued', 'claimed'])
          .executeTakeFirst();
        if (Number(page.numUpdatedRows) === 0) return false;
        const counter = COUNTER[state];
        await trx
          .updateTable('crawls')
          .set({
            finished: sql`finished + 1`,
            credits_millis: sql`credits_millis + ${details.millis ?? 0}`,
            bytes: sql`bytes + ${details.bytes ?? 0}`,
            ...(counter ? { [counter]: sql`${sql.ref(counter)} + 1` } : {}),
          })
          .where('id', '=', id)
          .execute();
        return true;
      });
    },

    /** Pages not yet finished: the crawl is over when none are left. */
    async unfinished(id: string): Promise<number> {
      const row = await db
        .selectFrom('crawl_pages')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('crawl_id', '=', id)
        .where('state', 'in', ['queued', 'claimed'])
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** Finished pages of `states` after `afterSeq`, in the order they finished. */
    pagesAfter: (id: string, states: readonly FinishedState[], afterSeq: number, limit: number) =>
      db
        .selectFrom('crawl_pages')
        .select(['url', 'seq', 'code', 'status', 'detail', 'result_key'])
        .where('crawl_id', '=', id)
        .where('state', 'in', states)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute(),

    /** Characters of content an account's crawls keep, together, among those not past their retention. */
    async accountBytes(accountId: number, now: number): Promise<number> {
      const row = await db
        .selectFrom('crawls')
        .select((eb) => eb.fn.sum<number | string | null>('bytes').as('bytes'))
        .where('account_id', '=', accountId)
        .where('expires_at', '>=', now)
        .executeTakeFirst();
      return Number(row?.bytes ?? 0);
    },

    /** Deletes crawls past their retention with their pages; says which, so their results go from the cache too. */
    async expire(now: number): Promise<string[]> {
      const gone = (await db.selectFrom('crawls').select('id').where('expires_at', '<', now).limit(100).execute()).map(
        (row) => row.id,
      );
      if (gone.length === 0) return gone;
      await db.deleteFrom('crawl_pages').where('crawl_id', 'in', gone).execute();
      await db.deleteFrom('crawls').where('id', 'in', gone).execute();
      return gone;
    },

    /** Gives every claimed page of a crawl back to the queue (their workers are gone). */
    async releaseClaims(id: string) {
      await db
        .updateTable('crawl_pages')
        .set({ state: 'queued', claimed_until: null })
        .where('crawl_id', '=', id)
        .where('state', '=', 'claimed')
        .execute();
    },

    /** The URLs of a crawl that wait for a job: queued, or claimed by a worker whose claim ran out. */
    async waitingPages(id: string, now: number): Promise<string[]> {
      const rows = await db
        .selectFrom('crawl_pages')
        .select('url')
        .where('crawl_id', '=', id)
        .where((eb) =>
          eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'claimed'), eb('claimed_until', '<', now)])]),
        )
        .execute();
      return rows.map((row) => row.url);
    },

    /** Brings the store's tables up to date: a worker may start before any API process has. */
    ready: () => store.migrate(),

    /** Crawls not over yet (queued or running): what a worker resumes when it starts. */
    unfinishedCrawls: () => db.selectFrom('crawls').select('id').where('status', 'in', ['queued', 'running']).execute(),
  };
}

export type CrawlStore = ReturnType<typeof createCrawlStore>;
