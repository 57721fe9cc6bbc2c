// Plans as data: each plan's monthly allowance (configurable) and its per-key rate limit.
import type { Config } from '../config.js';
import { MILLICREDITS_PER_CREDIT } from '../pricing.js';
import type { PlanKey } from '../store/types.js';

export const PLAN_KEYS: readonly PlanKey[] = ['free', 'starter', 'pro', 'scale'];

export interface PlanRules {
  monthlyMillis: number;
  /**
   * The allowance counts fetches, as the spec's free tier does: a page costs it one credit whichever fetcher read it
   * (priceOf's fetchMillis). Prepaid credits still pay the price list.
   */
  countsFetches: boolean;
  /** Requests per rate-limit window per key; 0 means unlimited. */
  requestsPerWindow: number;
  /** The most pages one crawl may read (POST /crawl's limit). */
  crawlPages: number;
}

export type PlanTable = Readonly<Record<PlanKey, PlanRules>>;

type PlanConfig = Pick<
  Config,
  | 'FREE_MONTHLY_CREDITS'
  | 'STARTER_MONTHLY_CREDITS'
  | 'PRO_MONTHLY_CREDITS'
  | 'SCALE_MONTHLY_CREDITS'
  | 'RATE_LIMIT_FREE'
  | 'RATE_LIMIT_STARTER'
  | 'RATE_LIMIT_PRO'
  | 'RATE_LIMIT_SCALE'
>;

export function planTable(config: PlanConfig): PlanTable {
  const rules = (credits: number, requestsPerWindow: number, crawlPages: number, countsFetches = false) => ({
    monthlyMillis: credits * MILLICREDITS_PER_CREDIT,
    countsFetches,
    requestsPerWindow,
    crawlPages,
  });
  // Crawl sizes: 10,000 pages on every plan (the floor), more on the larger plans.
  return Object.freeze({
    free: rules(config.FREE_MONTHLY_CREDITS, config.RATE_LIMIT_FREE, 10_000, true),
    starter: rules(config.STARTER_MONTHLY_CREDITS, config.RATE_LIMIT_STARTER, 10_000),
    pro: rules(config.PRO_MONTHLY_CREDITS, config.RATE_LIMIT_PRO, 50_000),
    scale: rules(config.SCALE_MONTHLY_CREDITS, config.RATE_LIMIT_SCALE, 100_000),
  });
}
