// The price list as data: what each operation costs in credits, and what credits cost. /spec publishes it and the
// ledger charges from it. Amounts are integer millicredits (1 credit = 1000), so 0.1-credit cache hits add up exactly.

export const MILLICREDITS_PER_CREDIT = 1000;

/** One credit is worth $0.001, so one millicredit is exactly one micro-dollar. */
export const CREDIT_PRICE_MICRO_USD = 1000;

/**
 * Per-route price of one fetched page: the fetcher that produced it decides (fetchers/types.ts checks every fetcher has
 * one).
 */
export const ROUTE_MILLICREDITS = Object.freeze({
  html: 1000,
  reader: 2000,
  browser: 5000,
  pdf: 2000,
});
export type PricedRoute = keyof typeof ROUTE_MILLICREDITS;

/** The spec's flat rates ($0.0002 per estimate, $0.0001 per cache hit), as millicredits. */
export const ESTIMATE_MILLICREDITS = 200;
export const CACHE_HIT_MILLICREDITS = 100;
/** POST /map: one credit, as a page, whatever the number of URLs it lists (Firecrawl's map is one credit too). */
export const MAP_MILLICREDITS = 1000;

/** A search with up to this many fetched results costs the flat search price. */
export const SEARCH_INCLUDED_RESULTS = 3;
export const SEARCH_MILLICREDITS = 15000;

export interface CreditPack {
  key: '10k' | '100k' | '1m';
  credits: number;
  priceCents: number;
}

/** Credit packs: bought once, never expire. */
export const CREDIT_PACKS: readonly CreditPack[] = Object.freeze([
  { key: '10k', credits: 10_000, priceCents: 1_000 },
  { key: '100k', credits: 100_000, priceCents: 8_000 },
  { key: '1m', credits: 1_000_000, priceCents: 60_000 },
]);

export interface Plan {
  key: 'free' | 'starter' | 'pro' | 'scale';
  monthlyCredits: number;
  priceCentsPerMonth: number;
}

/**
 * Subscriptions. The spec fixes the free tier (500 fetches a month), the starter price ($29) and the included
 * standard (html, 1-credit) fetches of each tier; pro at $99 and scale at $399 are our choice, so each tier costs less
 * per 1000 credits than the one below ($1.45, $0.99, $0.80).
 */
export const PLANS: readonly Plan[] = Object.freeze([
  { key: 'free', monthlyCredits: 500, priceCentsPerMonth: 0 },
  { key: 'starter', monthlyCredits: 20_000, priceCentsPerMonth: 2_900 },
  { key: 'pro', monthlyCredits: 100_000, priceCentsPerMonth: 9_900 },
  { key: 'scale', monthlyCredits: 500_000, priceCentsPerMonth: 39_900 },
]);

/**
 * An operation's price: `millis` on the price list, and `fetchMillis`, what it counts against an allowance of fetches
 * (the free tier's): each page one fetch (1 credit) whichever fetcher read it; a cheaper operation its own price.
 */
export interface Price {
  millis: number;
  fetchMillis: number;
}

/** The price of an operation that reads `pages` pages (none: an estimate, a refusal) and costs `millis`. */
export function priceOf(millis: number, pages = 1): Price {
  return { millis, fetchMillis: Math.min(millis, pages * ROUTE_MILLICREDITS.html) };
}

/**
 * A page read by OCR costs what a rendered page does: OCR takes a core for about a second a page, as a render does.
 * A document with OCR'd pages is priced by them instead of its route, when that is more.
 */
export const OCR_PAGE_MILLICREDITS = ROUTE_MILLICREDITS.browser;

/** Price of one fetched page: the cache-hit rate when it came from the cache, else its route's (or its OCR's). */
export function fetchMillicredits(fetcher: PricedRoute, cacheHit: boolean, ocrPages = 0): number {
  if (cacheHit) return CACHE_HIT_MILLICREDITS;
  return Math.max(ROUTE_MILLICREDITS[fetcher], ocrPages * OCR_PAGE_MILLICREDITS);
}

/**
 * Price of one search that delivered `numResults` fetched results (results that failed to fetch are not counted): the
 * flat 15 credits cover the search and up to three results; each further result adds the html route's 1 credit.
 * Further results are priced at the html rate whatever fetcher served them, so the most a search can cost,
 * searchMillicredits(num_results), is known before anything is fetched and can be checked against a balance.
 */
export function searchMillicredits(numResults: number): number {
  const extra = Math.max(0, Math.floor(numResults) - SEARCH_INCLUDED_RESULTS);
  return SEARCH_MILLICREDITS + extra * ROUTE_MILLICREDITS.html;
}

/** A search's price: against an allowance of fetches it counts the pages it pays for (three at least). */
export function searchPrice(numResults: number): Price {
  return priceOf(searchMillicredits(numResults), Math.max(SEARCH_INCLUDED_RESULTS, Math.floor(numResults)));
}

/** The same price in credits (a whole number: every part of a search price is whole). */
export function searchCredits(numResults: number): number {
  return toCredits(searchMillicredits(numResults));
}

export function toCredits(millicredits: number): number {
  return millicredits / MILLICREDITS_PER_CREDIT;
}

function toUsd(millicredits: number): number {
  return (millicredits * CREDIT_PRICE_MICRO_USD) / MILLICREDITS_PER_CREDIT / 1_000_000;
}

/**
 * The price list in the units a reader expects (credits and dollars), for /spec and the docs. The monthly credits of
 * each plan can be configured (FREE_MONTHLY_CREDITS…), so the caller passes the ones in force.
 */
export function describePricing(monthlyCredits: Partial<Record<Plan['key'], number>> = {}) {
  const usd = (cents: number) => cents / 100;
  return {
    currency: 'USD',
    credit_usd: CREDIT_PRICE_MICRO_USD / 1_000_000,
    route_credits: {
      html: toCredits(ROUTE_MILLICREDITS.html),
      reader: toCredits(ROUTE_MILLICREDITS.reader),
      browser: toCredits(ROUTE_MILLICREDITS.browser),
      pdf: toCredits(ROUTE_MILLICREDITS.pdf),
      ocr_page: toCredits(OCR_PAGE_MILLICREDITS),
      search_with_3_fetches: toCredits(SEARCH_MILLICREDITS),
      search_each_further_result: toCredits(ROUTE_MILLICREDITS.html),
    },
    flat_rates_usd: {
      estimate_tokens: toUsd(ESTIMATE_MILLICREDITS),
      cache_hit: toUsd(CACHE_HIT_MILLICREDITS),
      map: toUsd(MAP_MILLICREDITS),
    },
    flat_rates_credits: {
      estimate_tokens: toCredits(ESTIMATE_MILLICREDITS),
      cache_hit: toCredits(CACHE_HIT_MILLICREDITS),
      map: toCredits(MAP_MILLICREDITS),
    },
    crawl: 'each page a crawl reads is billed as a fetch of it: its route_credits, or cache_hit from the cache',
    packs: CREDIT_PACKS.map((p) => ({
      item_key: p.key,
      credits: p.credits,
      price_usd: usd(p.priceCents),
      expires: false,
    })),
    plans: PLANS.map((p) => ({
      item_key: p.key,
      monthly_credits: monthlyCredits[p.key] ?? p.monthlyCredits,
      price_usd_per_month: usd(p.priceCentsPerMonth),
    })),
  };
}
