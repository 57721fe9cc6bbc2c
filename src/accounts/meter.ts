// Metering of one caller's operations: reserve the price, do the work, settle to what the result says it cost
// (refunding failures), and write the ledger row. Anonymous callers are recorded for the metrics, never billed.
import { AppError, ValidationError } from '../errors.js';
import type { FetchResult } from '../http/schemas.js';
import { ESTIMATE_MILLICREDITS, MILLICREDITS_PER_CREDIT, ROUTE_MILLICREDITS, fetchMillicredits, searchMillicredits, toCredits } from '../pricing.js';
import { creditsCharged } from '../metrics/registry.js';
import type { FetchService } from '../services/fetch-service.js';
import type { Account } from '../store/types.js';
import type { Credits, QuotaShortfall } from './credits.js';

export type Caller = { kind: 'anonymous'; ip: string } | { kind: 'account'; account: Account; keyId: number };

export interface Priced {
  millis: number;
  fetcher?: string | null;
  cacheHit?: boolean;
  tokens?: number;
}

export interface Metered<T> {
  /** The ledger's operation name: fetch, batch (one row per item), estimate, search… */
  operation: string;
  /** The target URL, for the ledger's url_host. */
  url?: string;
  /** What to hold before the work starts; the settlement moves it to the real price (see FETCH_RESERVE_MILLIS). */
  reserveMillis: number;
  price(result: T): Priced;
}

/** Runs operations for one caller, billing them; the named methods carry the price list of each operation. */
export interface Meter {
  run<T>(spec: Metered<T>, work: () => Promise<T>): Promise<T>;
  fetch(url: string, work: () => Promise<FetchResult>): Promise<FetchResult>;
  estimate<T>(url: string, work: () => Promise<T>): Promise<T>;
  /** A search holds the most it can cost for `numResults` and settles to the `credits` its result reports. */
  search<T extends { credits: number }>(numResults: number, work: () => Promise<T>): Promise<T>;
  /** For a batch: 402 unless one page can be paid, then the fetch service with each page metered (one ledger row each). */
  batch(service: FetchService): Promise<FetchService>;
}

/** Price of a fetch result: the cache-hit rate, else the price of the fetcher that produced it. */
export function priceFetch(result: FetchResult): Priced {
  return {
    millis: fetchMillicredits(result.fetch_info.fetcher_used, result.cache.hit),
    fetcher: result.fetch_info.fetcher_used,
    cacheHit: result.cache.hit,
    tokens: result.metadata.token_count,
  };
}

/**
 * A fetch holds the price of the cheapest uncached route (html): a cache hit settles lower, a dearer fetcher higher.
 * Holding the dearest route instead would refuse callers who can pay for what they actually get.
 */
export const FETCH_RESERVE_MILLIS = ROUTE_MILLICREDITS.html;

const hosts = new Map<string, string | null>();

/** The host of a URL, remembered for the last few hundred URLs: agents fetch the same pages again and again. */
function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  let host = hosts.get(url);
  if (host !== undefined) return host;
  try {
    host = new URL(url).host || null;
  } catch {
    host = null;
  }
  if (hosts.size >= 512) hosts.clear();
  hosts.set(url, host);
  return host;
}

function statusOf(error: unknown): string {
  if (error instanceof AppError) return error.code;
  if (error instanceof ValidationError) return 'validation_error';
  return 'internal_error';
}

/** The ledger fields every operation records, billed or not. */
function ledgerDetails(spec: Metered<unknown>, priced: Priced, status: string, started: number) {
  return {
    operation: spec.operation,
    fetcher: priced.fetcher ?? null,
    cache_hit: priced.cacheHit ? 1 : 0,
    tokens: priced.tokens ?? 0,
    status,
    url_host: hostOf(spec.url),
    duration_ms: Math.round(performance.now() - started),
  };
}

export function quotaExceeded(shortfall: QuotaShortfall, publicBaseUrl: string): AppError {
  const renews = new Date(shortfall.renewsAt).toISOString();
  const monthly = toCredits(shortfall.monthlyMillis);
  const dashboard = `${publicBaseUrl.replace(/\/$/, '')}/dashboard`;
  return new AppError(
    'quota_exceeded',
    `out of credits: ${toCredits(shortfall.allowanceLeftMillis)} of the ${monthly} monthly credits of the ${shortfall.plan} plan ` +
      `are left and the prepaid balance is ${toCredits(shortfall.balanceMillis)} credits. Buy a credit pack (never expires) or ` +
      `upgrade the plan at ${dashboard} (or POST /billing/checkout); the monthly allowance renews at ${renews}.`,
    {
      retryHint: `buy credits or upgrade at ${dashboard}, or wait until ${renews}`,
      extra: {
        plan: shortfall.plan,
        monthly_credits: monthly,
        allowance_remaining_credits: toCredits(shortfall.allowanceLeftMillis),
        balance_credits: toCredits(shortfall.balanceMillis),
        renews_at: renews,
        upgrade_url: dashboard,
      },
    },
  );
}

function withOperations(run: Meter['run'], requireCredit: (millis: number) => Promise<void>): Meter {
  const fetch = (url: string, work: () => Promise<FetchResult>) => run({ operation: 'fetch', url, reserveMillis: FETCH_RESERVE_MILLIS, price: priceFetch }, work);
  return {
    run,
    fetch,
    estimate: (url, work) => run({ operation: 'estimate', url, reserveMillis: ESTIMATE_MILLICREDITS, price: () => ({ millis: ESTIMATE_MILLICREDITS }) }, work),
    search: (numResults, work) =>
      run({ operation: 'search', reserveMillis: searchMillicredits(numResults), price: (result) => ({ millis: Math.round(result.credits * MILLICREDITS_PER_CREDIT) }) }, work),
    async batch(service) {
      await requireCredit(FETCH_RESERVE_MILLIS);
      return {
        ...service,
        fetchOne: (request, loc) =>
          run({ operation: 'batch', url: request.url, reserveMillis: FETCH_RESERVE_MILLIS, price: priceFetch }, () => service.fetchOne(request, loc)),
      };
    },
  };
}

/** For in-process callers that are not billed (the stdio MCP server, the CLI): every operation just runs. */
export const unmetered: Meter = withOperations((_spec, work) => work(), async () => {});

export function createMetering(deps: { credits: Credits; publicBaseUrl: string; onError(error: unknown, context: string): void }) {
  const { credits, publicBaseUrl, onError } = deps;

  async function runAnonymous<T>(spec: Metered<T>, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let status = 'ok';
    let priced: Priced = { millis: 0 };
    try {
      const result = await work();
      priced = spec.price(result);
      return result;
    } catch (error) {
      status = statusOf(error);
      throw error;
    } finally {
      const row = { account_id: null, key_id: null, ...ledgerDetails(spec as Metered<unknown>, priced, status, started) };
      const batchWrite = credits.record(row);
      if (batchWrite) await batchWrite.catch((error: unknown) => onError(error, 'recording an anonymous operation'));
    }
  }

  // Anonymous callers are metered alike whatever their IP (the rate limit has already counted them), so they share
  // one meter instead of a set of closures per request.
  const anonymousMeter = withOperations(runAnonymous, async () => {});

  return function meterFor(caller: Caller): Meter {
    if (caller.kind === 'anonymous') return anonymousMeter;
    const { keyId, account } = caller;

    async function runBilled<T>(accountId: number, spec: Metered<T>, work: () => Promise<T>): Promise<T> {
      const reserved = await credits.reserve(accountId, spec.reserveMillis);
      if (!reserved.ok) throw quotaExceeded(reserved, publicBaseUrl);
      const started = performance.now();
      const settleAs = async (status: string, priced: Priced) => {
        try {
          const charged = await credits.settle(reserved.reservation, {
            priceMillis: status === 'ok' ? priced.millis : 0,
            key_id: keyId,
            ...ledgerDetails(spec as Metered<unknown>, priced, status, started),
          });
          creditsCharged.inc({ operation: spec.operation }, charged / MILLICREDITS_PER_CREDIT);
        } catch (error) {
          // The work is done; a ledger failure must not withhold its result. The reservation stays charged.
          onError(error, 'settling a reservation');
        }
      };
      let result: T;
      try {
        result = await work();
      } catch (error) {
        await settleAs(statusOf(error), { millis: 0 });
        throw error;
      }
      await settleAs('ok', spec.price(result));
      return result;
    }

    const run = <T>(spec: Metered<T>, work: () => Promise<T>) => runBilled(account.id, spec, work);
    const requireCredit = async (millis: number) => {
      const check = await credits.canAfford(account.id, millis);
      if (!check.ok) throw quotaExceeded(check, publicBaseUrl);
    };
    return withOperations(run, requireCredit);
  };
}

export type MeterFor = ReturnType<typeof createMetering>;
