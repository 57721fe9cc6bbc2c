// Metering of one caller's operations: hold the price, do the work, settle to what the result cost (refunding
// failures), and write the ledger row. Anonymous callers are recorded for the metrics, never billed; in-process
// callers (the CLI, the stdio MCP server) are neither.
import ipaddr from 'ipaddr.js';
import type { AnonymousAllowance, AnonymousRefusal } from '../accounts/anonymous.js';
import type { Credits, QuotaShortfall } from '../accounts/credits/index.js';
import type { FetchResult } from '../contract/fetch.js';
import { AppError, toErrorEntry } from '../errors.js';
import type { FetcherChoice, FetcherName } from '../fetchers/types.js';
import {
  CACHE_HIT_MILLICREDITS,
  ESTIMATE_MILLICREDITS,
  MAP_MILLICREDITS,
  MILLICREDITS_PER_CREDIT,
  ROUTE_MILLICREDITS,
  fetchMillicredits,
  priceOf,
  searchPrice,
  toCredits,
  type Price,
} from '../pricing.js';
import { creditsCharged } from '../metrics/registry.js';
import type { Account } from '../store/types.js';
import type { Delivery } from '../util/delivery.js';

export type Caller =
  | { kind: 'local' }
  | { kind: 'anonymous'; ip: string }
  /**
   * `keyId` null and `clientId` set: an OAuth client acting for the account (its ledger rows name it), with the
   * `scopes` its user granted. `delivery`: when the answer reaches the caller; a charge is kept only then (none: at
   * once).
   */
  | {
      kind: 'account';
      account: Account;
      keyId: number | null;
      clientId?: string;
      scopes?: readonly string[];
      delivery?: Delivery;
    };

/** Who a caller is for what it keeps (screenshots): its account, its address without a key, or this machine. */
export function ownerOf(caller: Caller): string {
  if (caller.kind === 'account') return `account:${caller.account.id}`;
  return caller.kind === 'anonymous' ? `ip:${caller.ip}` : 'local';
}

/** Asked before a fetcher dearer than what is held runs: holds the difference, or says the caller cannot pay it. */
export type Pay = (fetcher: FetcherName) => Promise<boolean>;

interface Priced {
  price: Price;
  fetcher?: string | null;
  cacheHit?: boolean;
  tokens?: number;
}

interface Metered<T> {
  /** The ledger's operation name: fetch, batch (one row per URL), estimate, search… */
  operation: string;
  /** The target URL, for the ledger's url_host. */
  url?: string;
  reserve: Price;
  /** What to hold instead of `reserve`, asked only of paying callers (a cache hit holds the cache rate). */
  quote?: () => Promise<Price>;
  price(result: T): Priced;
  /** The result as answered when `credits` were charged (results that state their price say what was taken). */
  charged?(result: T, credits: number): T;
}

/** Runs one caller's operations, billing them; each method carries the price list of its operation. */
export interface Meter {
  /**
   * A fetch, or one URL of a batch: holds the price of the fetcher asked for (html's for auto, topped up through
   * `pay` before the router runs a dearer one) and settles to the price of what was delivered.
   */
  fetch(
    operation: 'fetch' | 'batch' | 'crawl',
    url: string,
    fetcher: FetcherChoice,
    work: (pay?: Pay) => Promise<FetchResult>,
    fromCache?: () => Promise<boolean>,
  ): Promise<FetchResult>;
  estimate<T>(url: string, work: () => Promise<T>): Promise<T>;
  /** A site's map: the flat map price, whatever it found. */
  map<T extends { credits: number }>(url: string, work: () => Promise<T>): Promise<T>;
  /** A search holds the most it can cost for `numResults` and settles to the price of the results it fetched. */
  search<T extends SearchPriced>(numResults: number, work: () => Promise<T>): Promise<T>;
  /** 402 unless the caller could pay `price` now (a batch checks one page before it starts; a 402 is a batch row). */
  requireCredit(price: Price): Promise<void>;
}

/** Price of a fetch result: the cache-hit rate, else the price of the fetcher that produced it. */
function priceFetch(result: FetchResult): Priced {
  return {
    price: priceOf(fetchMillicredits(result.fetch_info.fetcher_used, result.cache.hit, result.fetch_info.ocr_pages)),
    fetcher: result.fetch_info.fetcher_used,
    cacheHit: result.cache.hit,
    tokens: result.metadata.token_count,
  };
}

/** A search's result: the results that have no error were fetched, and are paid for. */
interface SearchPriced {
  credits: number;
  results: readonly object[];
}

/** A result that states its price, as answered when `credits` were taken for it. */
function withCredits<T extends { credits: number }>(result: T, credits: number): T {
  return result.credits === credits ? result : { ...result, credits };
}

/**
 * What a fetch holds before it starts when it is not answered from the cache: a forced fetcher's price, else the
 * cheapest route's.
 */
function fetchReserve(fetcher: FetcherChoice): Price {
  return priceOf(ROUTE_MILLICREDITS[fetcher === 'auto' ? 'html' : fetcher]);
}

const NOTHING = priceOf(0);

/**
 * The host of a URL (for the ledger's url_host), remembered for the last few hundred URLs: agents fetch the same pages
 * again and again. One per process, owned with the other memos (pipeline.ts).
 */
export function createHostMemo() {
  const hosts = new Map<string, string | null>();
  return function hostOf(url: string | undefined): string | null {
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
  };
}

export type HostMemo = ReturnType<typeof createHostMemo>;

/** The ledger fields every operation records, billed or not. */
function ledgerDetails(
  hostOf: HostMemo,
  spec: Pick<Metered<unknown>, 'operation' | 'url'>,
  priced: Priced,
  status: string,
  started: number,
) {
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

export function quotaExceeded(shortfall: QuotaShortfall, publicBaseUrl: string, need?: string): AppError {
  const renews = new Date(shortfall.renewsAt).toISOString();
  const monthly = toCredits(shortfall.monthlyMillis);
  const dashboard = `${publicBaseUrl.replace(/\/$/, '')}/dashboard`;
  return new AppError(
    'quota_exceeded',
    `out of credits${need ? ` (${need})` : ''}: ${toCredits(shortfall.allowanceLeftMillis)} of ` +
      `the ${monthly} monthly ${shortfall.countsFetches ? 'fetches' : 'credits'} ` +
      (`of the ${shortfall.plan} plan are left and the prepaid balance is ` +
        `${toCredits(shortfall.balanceMillis)} credits. Buy `) +
      `a credit pack (never expires) or upgrade the plan at ${dashboard} (or POST /billing/checkout); the monthly ` +
      `allowance renews at ${renews}.`,
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

type Run = <T>(spec: Metered<T>, work: (pay?: Pay) => Promise<T>) => Promise<T>;

function withOperations(run: Run, requireCredit: Meter['requireCredit']): Meter {
  return {
    fetch: (operation, url, fetcher, work, fromCache) =>
      run(
        {
          operation,
          url,
          reserve: fetchReserve(fetcher),
          quote:
            fromCache && (async () => ((await fromCache()) ? priceOf(CACHE_HIT_MILLICREDITS) : fetchReserve(fetcher))),
          price: priceFetch,
          charged: withCredits,
        },
        work,
      ),
    estimate: (url, work) =>
      run(
        {
          operation: 'estimate',
          url,
          reserve: priceOf(ESTIMATE_MILLICREDITS),
          price: () => ({ price: priceOf(ESTIMATE_MILLICREDITS) }),
        },
        work,
      ),
    map: (url, work) =>
      run(
        {
          operation: 'map',
          url,
          reserve: priceOf(MAP_MILLICREDITS),
          price: () => ({ price: priceOf(MAP_MILLICREDITS) }),
          charged: withCredits,
        },
        work,
      ),
    search: (numResults, work) =>
      run(
        {
          operation: 'search',
          reserve: searchPrice(numResults),
          price: (result) => ({ price: searchPrice(result.results.filter((r) => !('error' in r)).length) }),
          charged: withCredits,
        },
        work,
      ),
    requireCredit,
  };
}

const unmetered: Meter = withOperations(
  (_spec, work) => work(),
  async () => {},
);

/** The meter of in-process callers only: they are never billed, so it needs no account store. */
export const meterLocal: MeterFor = () => unmetered;

/**
 * Whether a client address is this machine's: a laptop's own use of its server is no trial, and is not counted; nor is
 * it another tenant (cache status, fetching.ts).
 */
export function isLoopback(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';
}

function anonymousQuotaExceeded(refusal: AnonymousRefusal, publicBaseUrl: string): AppError {
  const renews = new Date(refusal.renewsAt).toISOString();
  const signup = `${publicBaseUrl.replace(/\/$/, '')}/account/signup`;
  return new AppError(
    'quota_exceeded',
    `this address has used the ${refusal.limit} requests a month served without an API key. Sign up for a free ` +
      `key (POST ${signup} with your e-mail: 500 fetches a month) and send it in the X-Service-Key header; the ` +
      `allowance without a key renews at ${renews}.`,
    {
      retryHint: `sign up for a free API key at ${signup}, or wait until ${renews}`,
      extra: { anonymous_monthly_requests: refusal.limit, renews_at: renews, signup_url: signup },
    },
  );
}

export function createMetering(deps: {
  credits: Credits;
  anonymous: AnonymousAllowance;
  publicBaseUrl: string;
  hostOf: HostMemo;
  onError(error: unknown, context: string): void;
}) {
  const { credits, anonymous, publicBaseUrl, hostOf, onError } = deps;

  async function runAnonymous<T>(ip: string, spec: Metered<T>, work: (pay?: Pay) => Promise<T>): Promise<T> {
    const started = performance.now();
    let status = 'ok';
    let priced: Priced = { price: NOTHING };
    const counted = !isLoopback(ip);
    try {
      const refusal = counted ? await anonymous.check(ip) : undefined;
      if (refusal) throw anonymousQuotaExceeded(refusal, publicBaseUrl);
      const result = await work();
      priced = spec.price(result);
      if (counted) anonymous.count(ip);
      return result;
    } catch (error) {
      status = toErrorEntry(error).code;
      throw error;
    } finally {
      const row = { account_id: null, key_id: null, ...ledgerDetails(hostOf, spec, priced, status, started) };
      const batchWrite = credits.record(row);
      if (batchWrite) await batchWrite.catch((error: unknown) => onError(error, 'recording an anonymous operation'));
    }
  }

  return function meterFor(caller: Caller): Meter {
    if (caller.kind === 'local') return unmetered;
    if (caller.kind === 'anonymous') {
      const { ip } = caller;
      return withOperations(
        (spec, work) => runAnonymous(ip, spec, work),
        async () => {},
      );
    }
    const { keyId, account, delivery } = caller;
    const client_id = caller.clientId ?? null;

    /** Every 402 is a row too (it charges nothing), so the usage page counts refusals. */
    async function recordRefusal(spec: Pick<Metered<unknown>, 'operation' | 'url'>, started: number) {
      const refusal = credits.record({
        account_id: account.id,
        key_id: keyId,
        client_id,
        ...ledgerDetails(hostOf, spec, { price: NOTHING }, 'quota_exceeded', started),
      });
      if (refusal) await refusal.catch((error: unknown) => onError(error, 'recording a refusal'));
    }

    async function runBilled<T>(spec: Metered<T>, work: (pay?: Pay) => Promise<T>): Promise<T> {
      const started = performance.now();
      const hold = spec.quote ? await spec.quote() : spec.reserve;
      const first = await credits.reserve(account.id, hold);
      if (!first.ok) {
        await recordRefusal(spec, started);
        throw quotaExceeded(first, publicBaseUrl);
      }
      const { reservation } = first;
      let held = hold;
      let refused: { fetcher: FetcherName; shortfall: QuotaShortfall } | undefined;
      const pay: Pay = async (fetcher) => {
        const price = priceOf(ROUTE_MILLICREDITS[fetcher]);
        if (price.millis <= held.millis && price.fetchMillis <= held.fetchMillis) return true;
        const more = {
          millis: Math.max(0, price.millis - held.millis),
          fetchMillis: Math.max(0, price.fetchMillis - held.fetchMillis),
        };
        const topUp = await credits.topUp(reservation, more);
        if (!topUp.ok) {
          refused = { fetcher, shortfall: topUp };
          return false;
        }
        held = price;
        return true;
      };
      /** The millicredits charged (kept once the answer reaches the caller), or undefined if settling failed. */
      const settleAs = async (status: string, priced: Priced): Promise<number | undefined> => {
        try {
          const { charged, keep } = await credits.settle(reservation, {
            price: status === 'ok' ? priced.price : NOTHING,
            key_id: keyId,
            client_id,
            ...ledgerDetails(hostOf, spec, priced, status, started),
          });
          const keepWhenDelivered = (delivered: boolean) => {
            keep(delivered);
            if (delivered) creditsCharged.inc({ operation: spec.operation }, charged / MILLICREDITS_PER_CREDIT);
          };
          if (delivery) delivery.onDelivery(keepWhenDelivered);
          else keepWhenDelivered(true);
          return charged;
        } catch (error) {
          // The work is done; a failure to settle must not withhold its result.
          onError(error, 'settling a reservation');
          return undefined;
        }
      };
      let result: T;
      try {
        result = await work(pay);
      } catch (error) {
        // A page only a fetcher the caller could not pay for could read: the 402 says which.
        const unpaid = refused && toErrorEntry(error).code !== 'blocked_url' ? refused : undefined;
        await settleAs(unpaid ? 'quota_exceeded' : toErrorEntry(error).code, { price: NOTHING });
        if (unpaid) {
          const need =
            `this page needs the ${unpaid.fetcher} fetcher, ` +
            `${toCredits(ROUTE_MILLICREDITS[unpaid.fetcher])} credits`;
          throw quotaExceeded(unpaid.shortfall, publicBaseUrl, need);
        }
        throw error;
      }
      const charged = await settleAs('ok', spec.price(result));
      return charged === undefined || !spec.charged ? result : spec.charged(result, toCredits(charged));
    }

    const requireCredit = async (price: Price) => {
      const started = performance.now();
      const check = await credits.canAfford(account.id, price);
      if (!check.ok) {
        await recordRefusal({ operation: 'batch' }, started);
        throw quotaExceeded(check, publicBaseUrl);
      }
    };
    return withOperations(runBilled, requireCredit);
  };
}

export type MeterFor = ReturnType<typeof createMetering>;
