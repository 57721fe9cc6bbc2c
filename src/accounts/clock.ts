// Calendar arithmetic of the accounts service (months, days), on the Clock it reads "now" from.

export { systemClock, type Clock } from '../util/clock.js';

const DAY_MS = 86_400_000;

/** The calendar month (UTC) an instant falls in, as YYYY-MM: the period monthly allowances count. */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** First instant of the month `at` falls in, and of the next one (UTC). */
export function monthBounds(at: number): { start: number; end: number } {
  const d = new Date(at);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Whole UTC days since the epoch: the bucket of the per-day usage series. */
export function dayIndex(at: number): number {
  return Math.floor(at / DAY_MS);
}

export function dayLabel(index: number): string {
  return new Date(index * DAY_MS).toISOString().slice(0, 10);
}
