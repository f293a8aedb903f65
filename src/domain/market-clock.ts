import { sessionCloseAt, sessionOpenAt, todayInNewYork } from "./calendar";
import { DAY_MS } from "./time";

/** The rate used when a load does not say (synthetic market, loaders without `--rate`); the market stores the one it used. */
export const DEFAULT_RISK_FREE_RATE = 0.043;

/** A year as time to expiry counts it: 365 calendar days. */
export const YEAR_MS = 365 * DAY_MS;
/** Snapshots are taken this long before the close, like vendors' 15:45 files (12:45 on early-close days). */
const SNAPSHOT_BEFORE_CLOSE_MS = 15 * 60_000;

/** One session's instants, in UTC. */
export interface MarketClock {
  sessionDate: string;
  sessionOpen: Date;
  sessionClose: Date;
  /** The snapshot instant: 15 minutes before the close. */
  asOf: Date;
}

export function marketClock(sessionDate: string): MarketClock {
  const sessionClose = sessionCloseAt(sessionDate);
  return {
    sessionDate,
    sessionOpen: sessionOpenAt(sessionDate),
    sessionClose,
    asOf: new Date(sessionClose.getTime() - SNAPSHOT_BEFORE_CLOSE_MS),
  };
}

export type Settlement = "am" | "pm";

/** An index's own root (SPX, not SPXW) settles at the open of its expiration day; every other root at the close. */
export function settlementOf(root: string, underlying: string, isIndex: boolean): Settlement {
  return isIndex && root === underlying ? "am" : "pm";
}

/**
 * The instant a contract expires (its settlement): the expiration session's open, 09:30 ET, for
 * AM-settled contracts; its close, 16:00 ET or 13:00 on early-close days, for PM-settled ones.
 */
export function expiryInstant(expiration: string, settlement: Settlement): Date {
  return settlement === "am" ? sessionOpenAt(expiration) : sessionCloseAt(expiration);
}

/** Years (of 365 days) from `at` to `expiry`, and 0 at and after it: time to expiry ends at settlement. */
export function yearsUntil(expiry: Date | number, at: Date | number): number {
  return Math.max((Number(expiry) - Number(at)) / YEAR_MS, 0);
}

/**
 * Years (of 365 days) from `at` to the contract's expiry instant (`expiryInstant`), with intraday
 * precision (ANALYTICS.md §1.1); 0 from that instant on, with no floor: an expired contract has no
 * Greeks and no gamma exposure (callers treat T ≤ 0 as expired).
 */
export function yearsToExpiry(expiration: string, settlement: Settlement, at: Date): number {
  return yearsUntil(expiryInstant(expiration, settlement), at);
}

/** True from the contract's expiry instant on. */
export function hasExpired(expiration: string, settlement: Settlement, at: Date): boolean {
  return at.getTime() >= expiryInstant(expiration, settlement).getTime();
}

/**
 * How many of the settlement instants of `at`'s own New York date have passed: 0 before the open,
 * 1 from the open (that day's AM-settled contracts have expired), 2 from the close (all of that
 * day's contracts have). With that date it decides `hasExpired` for every contract (earlier
 * expirations have expired, later ones have not), so a body that depends on which contracts have
 * expired is a function of the date and this phase: the part of the clock its cache key needs.
 */
export function settlementPhase(at: Date): 0 | 1 | 2 {
  const today = todayInNewYork(at);
  if (at.getTime() >= sessionCloseAt(today).getTime()) return 2;
  return at.getTime() >= sessionOpenAt(today).getTime() ? 1 : 0;
}
