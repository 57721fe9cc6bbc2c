// The price list: the spec's constants, exact in millicredits, and the search price rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CACHE_HIT_MILLICREDITS,
  ESTIMATE_MILLICREDITS,
  ROUTE_MILLICREDITS,
  describePricing,
  fetchMillicredits,
  priceOf,
  searchCredits,
  searchMillicredits,
  searchPrice,
} from '../src/pricing.js';

test('per-route and flat prices are the spec constants', () => {
  assert.deepEqual(ROUTE_MILLICREDITS, { html: 1000, reader: 2000, browser: 5000, pdf: 2000 });
  assert.equal(ESTIMATE_MILLICREDITS, 200);
  assert.equal(CACHE_HIT_MILLICREDITS, 100);
  assert.equal(fetchMillicredits('browser', false), 5000);
  assert.equal(fetchMillicredits('browser', true), 100);
});

test('a search costs 15 credits up to three results, plus the html price for each further one', () => {
  assert.deepEqual([0, 1, 3, 4, 10].map(searchCredits), [15, 15, 15, 16, 22]);
  assert.equal(searchMillicredits(10), 22000);
});

test('against an allowance of fetches a page counts one whatever its route; cheaper work its own price', () => {
  assert.deepEqual(priceOf(ROUTE_MILLICREDITS.browser), { millis: 5000, fetchMillis: 1000 });
  assert.deepEqual(priceOf(CACHE_HIT_MILLICREDITS), { millis: 100, fetchMillis: 100 });
  assert.deepEqual(priceOf(ESTIMATE_MILLICREDITS), { millis: 200, fetchMillis: 200 });
  // A search counts the pages it pays for: three included, one per further result.
  assert.deepEqual(searchPrice(0), { millis: 15000, fetchMillis: 3000 });
  assert.deepEqual(searchPrice(5), { millis: 17000, fetchMillis: 5000 });
});

test('ten thousand cache hits add up to exactly 1000 credits', () => {
  let total = 0;
  for (let i = 0; i < 10_000; i++) total += CACHE_HIT_MILLICREDITS;
  assert.equal(total / 1000, 1000);
});

test('the published price list', () => {
  const p = describePricing();
  assert.equal(p.credit_usd, 0.001);
  assert.deepEqual(p.route_credits, {
    html: 1,
    reader: 2,
    browser: 5,
    pdf: 2,
    ocr_page: 5,
    search_with_3_fetches: 15,
    search_each_further_result: 1,
  });
  assert.deepEqual(p.flat_rates_usd, { estimate_tokens: 0.0002, cache_hit: 0.0001, map: 0.001 });
  assert.deepEqual(p.flat_rates_credits, { estimate_tokens: 0.2, cache_hit: 0.1, map: 1 });
  assert.match(p.crawl, /each page .* billed as a fetch/);
  assert.deepEqual(
    p.packs.map((x) => [x.item_key, x.credits, x.price_usd]),
    [
      ['10k', 10000, 10],
      ['100k', 100000, 80],
      ['1m', 1000000, 600],
    ],
  );
  assert.deepEqual(
    p.plans.map((x) => [x.item_key, x.monthly_credits, x.price_usd_per_month]),
    [
      ['free', 500, 0],
      ['starter', 20000, 29],
      ['pro', 100000, 99],
      ['scale', 500000, 399],
    ],
  );
});
