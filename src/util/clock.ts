// Time as a dependency: what reads "now" (cache expiry, months, link expiry) takes a Clock, so tests move time on
// instead of sleeping.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
