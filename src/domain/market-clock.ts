import { sessionCloseAt, sessionOpenAt } from "./calendar";
import { DAY_MS } from "./time";

/** The rate used when a load does not say (synthetic market, loaders without `--rate`); the market stores the one it used. */
export const DEFAULT_RISK_FREE_RATE = 0.043;

const YEAR_MS = 365 * DAY_MS;
/** Time to expiry never reaches zero: a contract at its expiry instant still gets finite Greeks. */
const MIN_YEARS = 60_000 / YEAR_MS;
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

/**
 * Years (of 365 days) from `at` to the expiry instant — the expiration session's open for
 * AM-settled contracts, its close (13:00 on early-close days) for PM-settled ones — floored at a
 * minute (ANALYTICS.md §1.1).
 */
export function yearsToExpiry(expiration: string, settlement: "am" | "pm", at: Date): number {
  const expiry = settlement === "am" ? sessionOpenAt(expiration) : sessionCloseAt(expiration);
  return Math.max((expiry.getTime() - at.getTime()) / YEAR_MS, MIN_YEARS);
}
