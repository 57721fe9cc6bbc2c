// The accounts service: sign-up, keys, magic-link sessions, credits, usage and admin metrics, built from a store, a
// clock and a mailer. createAccountServices wires it from its slice of the config for the composition root (deps.ts).
import { hostname } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createMemoryCache } from '../cache/memory.js';
import { connectRedis } from '../cache/redis-connection.js';
import { createSharedCache } from '../cache/shared.js';
import type { Cache } from '../cache/types.js';
import type { Config } from '../config.js';
import { createMailer, type Mailer, type MailMessage } from '../mail/index.js';
import { createRateLimiter, type RateLimiter } from '../ratelimit/index.js';
import { toCredits } from '../pricing.js';
import { createStore, type Store } from '../store/db.js';
import type { Account, PlanKey } from '../store/types.js';
import { systemClock, type Clock } from './clock.js';
import { createAnonymousAllowance } from './anonymous.js';
import { createCredits } from './credits/index.js';
import { createSpendJournal, type SpendJournal } from './credits/journal.js';
import { createKeys } from './keys.js';
import { createLogin } from './login.js';
import { createMetrics } from './metrics.js';
import { planTable } from './plans.js';
import { createUsage } from './usage.js';

export type { Clock } from './clock.js';

/** Verified API keys kept per process (most recently used first). */
const VERIFIED_KEYS = 10_000;

/**
 * This process's folder of the spend journal, under DATA_DIR: one per host name and port, so the process that takes
 * the port after this one on the same machine or container (a restart) settles what this one left, and replicas that
 * share a volume (compose.yaml) keep apart.
 */
const journalDir = (config: Pick<Config, 'DATA_DIR' | 'PORT'>) =>
  join(config.DATA_DIR, 'spend-journal', `${hostname()}-${config.PORT > 0 ? config.PORT : `pid-${process.pid}`}`);

export interface AccountsLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export type AccountsConfig = Parameters<typeof planTable>[0] &
  Pick<
    Config,
    | 'PUBLIC_BASE_URL'
    | 'MAX_KEYS_PER_ACCOUNT'
    | 'DATA_DIR'
    | 'PORT'
    | 'CREDIT_LEASE_TTL_MS'
    | 'ANONYMOUS_MONTHLY_REQUESTS'
  >;

export function createAccounts(deps: {
  store: Store;
  mailer: Mailer;
  config: AccountsConfig;
  log: AccountsLog;
  clock?: Clock;
  /** Where charges wait for their ledger rows: files under DATA_DIR unless given (Redis in production). */
  journal?: SpendJournal;
  /** Verified API keys by hash: this process's memory unless given (Redis with coherent fronts in production). */
  verifiedKeys?: Cache;
}) {
  const { store, mailer, config, log } = deps;
  const clock = deps.clock ?? systemClock;
  const plans = planTable(config);
  const sending = new Set<Promise<void>>();

  /** Mail goes out in the background, so a response never waits on (or reveals anything through) the mail server. */
  function deliver(message: MailMessage, requestId: string | undefined): void {
    const sent: Promise<void> = mailer
      .send({ ...message, requestId })
      .catch((error: unknown) =>
        log.warn(
          { reqId: requestId, to: message.to, subject: message.subject, err: String(error) },
          'mail could not be sent',
        ),
      )
      .finally(() => sending.delete(sent));
    sending.add(sent);
  }

  const verified = deps.verifiedKeys ?? createMemoryCache({ maxEntries: VERIFIED_KEYS, clock });
  const keys = createKeys({ store, clock, maxKeysPerAccount: config.MAX_KEYS_PER_ACCOUNT, verified });
  const credits = createCredits({
    store,
    clock,
    plans,
    journal: deps.journal ?? createSpendJournal({ dir: journalDir(config) }),
    leaseTtlMs: config.CREDIT_LEASE_TTL_MS,
    onError: (error, context) => log.error({ err: String(error) }, `ledger: failed ${context}`),
  });
  const anonymous = createAnonymousAllowance({
    store,
    clock,
    limit: config.ANONYMOUS_MONTHLY_REQUESTS,
    onError: (error) => log.error({ err: String(error) }, 'anonymous usage counts could not be written'),
  });
  const login = createLogin({
    store,
    clock,
    keys,
    grants: credits.grants,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    deliver,
  });
  const metrics = createMetrics({ store, clock });

  return {
    plans,
    clock,
    ...login,
    addKey: keys.addKey,
    listKeys: keys.listKeys,
    revokeKey: keys.revokeKey,
    verifyApiKey: keys.verifyApiKey,
    anonymous,
    addBalance: credits.addBalance,
    /** An operator's plan change: rate limits follow at once (kept keys carry the plan). */
    async changePlan(accountId: number, plan: PlanKey) {
      await credits.changePlan(accountId, plan);
      await keys.forgetKeysOf(accountId);
    },
    /** After a change of an account's plan elsewhere (the billing webhook): its kept keys and its lease here go. */
    async planChanged(accountId: number) {
      credits.planChanged(accountId);
      await keys.forgetKeysOf(accountId);
    },
    credits,
    /** An account by id: a crawl's worker reads its owner's plan before each page. */
    accountById: (id: number) => store.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The public view of an account (/account/me, /auth/whoami). */
    async describeAccount(account: Account) {
      const { balanceMillis } = await credits.view(account.id);
      return {
        id: account.id,
        email: account.email,
        plan: account.plan,
        monthly_credits: toCredits(plans[account.plan].monthlyMillis),
        balance_credits: toCredits(balanceMillis),
        created_at: new Date(account.created_at).toISOString(),
      };
    },
    summarizeUsage: createUsage({ store, clock, credits }),
    /** Metrics include the rows still waiting for their batched write. */
    collectMetrics: async (...args: Parameters<ReturnType<typeof createMetrics>>) => {
      await credits.flush();
      return metrics(...args);
    },
    /** Writes the rows this process has queued. */
    flushRecords: credits.flush,
    /** Resolves when every e-mail queued so far has been handed to the mailer (or failed). */
    async flushMail(): Promise<void> {
      while (sending.size > 0) await Promise.allSettled([...sending]);
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;

/** Store, mailer, rate limiter and the accounts service, from the config; close() releases them in order. */
export function createAccountServices(config: Config, deps: { clock?: Clock } = {}) {
  const log = pino({ level: config.LOG_LEVEL, name: 'accounts' });
  const onError = (error: Error) => log.warn({ err: error }, 'a database connection failed; the pool replaces it');
  const store: Store = createStore({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, onError });
  const mailer = createMailer(config, log);
  const rateLimiter: RateLimiter = createRateLimiter(config, (error) =>
    log.warn({ err: String(error) }, 'rate limiter unavailable; request allowed'),
  );
  const redis = config.CACHE_URL && /^rediss?:\/\//.test(config.CACHE_URL) ? connectRedis(config.CACHE_URL) : null;
  const journal = createSpendJournal({ dir: journalDir(config), redis: redis ?? undefined });
  const verifiedKeys = redis
    ? createSharedCache({ url: config.CACHE_URL!, maxEntries: VERIFIED_KEYS, keyPrefix: 'fd:keys:', clock: deps.clock })
    : undefined;
  const accounts = createAccounts({ store, mailer, config, log, clock: deps.clock, journal, verifiedKeys });
  return {
    store,
    accounts,
    rateLimiter,
    async close() {
      await accounts.flushMail();
      await accounts.anonymous
        .flush()
        .catch((error: unknown) =>
          log.error({ err: error }, 'anonymous usage counts could not be written at shutdown'),
        );
      await accounts.credits
        .close()
        .catch((error: unknown) =>
          log.error({ err: error }, 'ledger rows or credit leases could not be written at shutdown'),
        );
      await Promise.allSettled([mailer.close(), rateLimiter.close(), redis?.quit(), verifiedKeys?.close()]);
      await store.close();
    },
  };
}
