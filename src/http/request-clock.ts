import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { todayInNewYork } from "../domain/calendar";

/** The instant the request is answered as of: now, or the pinned `MARKET_CLOCK` of a local replay. */
export function requestNow(c: Context<AppEnv>): Date {
  return c.get("config").MARKET_CLOCK ?? new Date();
}

/** Today in New York as the request sees it: DTE, default windows and "today" all start here. */
export function requestToday(c: Context<AppEnv>): string {
  return todayInNewYork(requestNow(c));
}
