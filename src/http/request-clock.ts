import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { todayInNewYork } from "../domain/calendar";
import { settlementPhase } from "../domain/market-clock";

/** The instant the request is answered as of: now, or the pinned `MARKET_CLOCK` of a local replay. */
export function requestNow(c: Context<AppEnv>): Date {
  return c.get("config").MARKET_CLOCK ?? new Date();
}

/** Today in New York as the request sees it: DTE, default windows and "today" all start here. */
export function requestToday(c: Context<AppEnv>): string {
  return todayInNewYork(requestNow(c));
}

/**
 * The request's instant floored to the minute: what time-dependent values (GEX) are computed as of,
 * so that one rendered body serves a whole minute. Settlement instants fall on whole minutes, so
 * flooring never moves a contract across its expiry.
 */
export function requestMinute(c: Context<AppEnv>): Date {
  return minuteOf(requestNow(c));
}

/** An instant floored to its minute. */
export function minuteOf(at: Date): Date {
  const ms = at.getTime();
  return new Date(ms - (((ms % 60_000) + 60_000) % 60_000));
}

/**
 * Which of today's settlement instants the request is past (`settlementPhase`): with today, it
 * decides which contracts have expired, so it belongs in the cache key of a body that depends on that.
 */
export function requestSettlementPhase(c: Context<AppEnv>): 0 | 1 | 2 {
  return settlementPhase(requestNow(c));
}
